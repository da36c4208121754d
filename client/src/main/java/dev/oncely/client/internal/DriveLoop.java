package dev.oncely.client.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.PendingReason;
import dev.oncely.client.Reconciler;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.event.IntentEvent;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import okhttp3.HttpUrl;

/**
 * The one drive loop of both entry points: claim, pace, gate, attempt, judge, record, park,
 * finish. {@link RecordKeeper} makes every transition durable, a {@link Wire} puts each attempt on
 * the wire, {@link AnswerPolicy} decides what each answer means, and {@link Pacer} says how long to
 * wait and when to stop. The loop only runs them in order, and persists what it learned before it
 * ends. Nothing but a {@link DriveEnd} leaves {@link #drive}: an unexpected exception parks the
 * record {@link PendingReason#UNEXPECTED_FAILURE}, maybe delivered once an attempt started. Not
 * thread-safe: one loop per intent at a time in a process; compare-and-set stops a second driver
 * elsewhere.
 */
public final class DriveLoop {
  private static final String PAST_RETENTION = "older than the server's key retention (%s):"
      + " resending could create a second effect";

  private static final Duration GATE_SLICE = Duration.ofMillis(100);

  private final DriveSettings s;
  private final Wire wire;
  private final IntentId id;
  private final RecordKeeper keeper;
  private final boolean claimed;
  private final Failures failures = new Failures();
  private StoredResponse lastResponse;
  private IOException lastFailure;
  private int attemptsThisDrive;
  private Wire.Sent held;

  private DriveLoop(DriveSettings settings, Wire wire, IntentRecord record, boolean claimed,
      boolean deliveredBefore) {
    this.s = settings;
    this.wire = wire;
    this.id = record.id();
    this.claimed = claimed;
    this.keeper = new RecordKeeper(settings.store(), settings.clock(), record,
        deliveredBefore || (!claimed && RecordKeeper.loadedMaybeDelivered(record)));
    this.lastResponse = record.lastResponse();
  }

  /**
   * Drives {@code record} until it has an outcome or the drive stops; never throws.
   *
   * @param claimed true when the caller has just created {@code record} in state {@code
   *     IN_FLIGHT} and nothing was sent for it yet: that create was the claim
   * @param deliveredBefore whether something outside the record knows that a write of the intent
   *     may already have reached the server (an earlier run of the same call)
   */
  public static DriveEnd drive(DriveSettings settings, Wire wire, IntentRecord record,
      boolean claimed, boolean deliveredBefore) {
    IntentStore store = settings.store();
    if (store == null) {
      return new DriveLoop(settings, wire, record, claimed, deliveredBefore).run();
    }
    if (!ActiveDrives.enter(store, record.id())) {
      return new DriveEnd(DriveEnd.Kind.LOST, record, null, null, PendingReason.DRIVEN_ELSEWHERE,
          "another drive in this process holds the intent; nothing was sent", null, null);
    }
    try {
      return new DriveLoop(settings, wire, record, claimed, deliveredBefore).run();
    } finally {
      ActiveDrives.leave(store, record.id());
    }
  }

  private DriveEnd run() {
    try {
      return runOwned();
    } catch (RecordKeeper.LostOwnership e) {
      discardHeld();
      IntentRecord now;
      try {
        now = s.store().get(id).orElse(null);
      } catch (RuntimeException again) {
        now = null;
      }
      return new DriveEnd(DriveEnd.Kind.LOST, now, null, null, PendingReason.DRIVEN_ELSEWHERE,
          "another client instance or process changed the record", null, null);
    } catch (StoreException e) {
      discardHeld();
      return new DriveEnd(DriveEnd.Kind.STORE_FAILED, keeper.record(), null, null,
          PendingReason.STORE_FAILED, "the store failed (" + e.getClass().getSimpleName()
          + "); the last durable state is kept", null, failures.attachTo(e));
    } catch (RuntimeException e) {
      discardHeld();
      return unexpected(e);
    }
  }

  /** Parks the record after an exception nothing expected, telling whether anything was sent. */
  private DriveEnd unexpected(Throwable e) {
    String detail = "an unexpected " + e.getClass().getSimpleName() + " stopped the drive; "
        + describeLast();
    try {
      keeper.park(PendingReason.UNEXPECTED_FAILURE, detail, null, lastResponse);
    } catch (RuntimeException parkFailed) {
      e.addSuppressed(parkFailed);
    }
    emit(new IntentEvent.GaveUpUnknown(id, PendingReason.UNEXPECTED_FAILURE, detail));
    return new DriveEnd(DriveEnd.Kind.PARKED, keeper.record(), null, null,
        PendingReason.UNEXPECTED_FAILURE, detail, null, failures.attachTo(e));
  }

  private DriveEnd runOwned() {
    IntentRecord record = keeper.record();
    if (record.state().isTerminal()) {
      return settled(null);
    }
    if (record.state() == IntentState.NEEDS_RECONCILIATION) {
      return reconcile();
    }
    if (keeper.maybeDelivered() && !withinRetention()) {
      String reason = String.format(PAST_RETENTION, s.keyRetention());
      keeper.reconcile(reason);
      emit(new IntentEvent.NeedsReconciliation(id, reason));
      return reconcile();
    }
    Instant notBefore = record.nextAttemptAt();
    if (!claimed) {
      keeper.claim(s.dialect().keyHeader(), s.dialect().formatKey(id.key()));
    }
    Pacer pacer = new Pacer(s.policy(), s.budget(),
        new Waits(s.policy(), s.random(), s.listener(), id), s.clock());
    if (notBefore != null && now().isBefore(notBefore)) {
      // The last drive stopped with a wait still owed (backoff or Retry-After): honour it, unless
      // it outlasts this drive, which then stops at once with the same due time.
      if (!notBefore.isBefore(pacer.deadline())) {
        return park(PendingReason.DEADLINE_EXCEEDED, notBefore, null);
      }
      Duration owed = Duration.between(now(), notBefore);
      emit(new IntentEvent.RetryScheduled(id, keeper.attempts() + 1, owed,
          "waiting for the stored next attempt time"));
      if (!wire.pause(owed)) {
        return park(PendingReason.INTERRUPTED, notBefore, null);
      }
    }
    HttpUrl intentUrl = ParsedUrls.get(record.url());
    AnswerPolicy policy = new AnswerPolicy(s.dialect(), id, intentUrl);
    Exchange exchange = record.pollUrl() != null
        ? Exchange.poll(ParsedUrls.get(record.pollUrl())) : Exchange.submit(intentUrl);
    boolean refresh = false;
    boolean processing = record.pollUrl() != null;
    while (true) {
      DriveEnd blocked = awaitGate(pacer);
      if (blocked != null) {
        return blocked;
      }
      if (wire.stopped() != null) {
        return park(PendingReason.INTERRUPTED, null, null);
      }
      if (pacer.pastDeadline()) {
        return park(processing ? PendingReason.STILL_PROCESSING
            : PendingReason.DEADLINE_EXCEEDED, null, null);
      }
      boolean deliveredBefore = keeper.maybeDelivered();
      held = attempt(exchange, refresh, pacer);
      Answer answer = held.answer();
      if (answer.failure() != null && wire.stopped() != null) {
        return park(PendingReason.INTERRUPTED, null, null);
      }
      Step step = policy.decide(exchange, deliveredBefore, answer, withinRetention());
      if (answer.response() != null && answer.response().status() < 500
          && answer.response().status() != 429) {
        s.budget().recordSuccess(answer.url().host());
      }
      if (step instanceof Step.Finish finish) {
        return finish(finish);
      }
      if (step instanceof Step.Park stop) {
        return parkWith(stop.reason(), stop.detail(), null, null);
      }
      Step.Again again = (Step.Again) step;
      if (again.event() != null) {
        emit(again.event());
      }
      Exchange next = withoutUserInfo(again.next());
      follow(exchange, next, answer);
      Pacer.Pace pace = pacer.next(answer.response(), again.chargeBudget(), again.processing(),
          answer.url().host());
      if (!pace.goesOn()) {
        if (pace.refusal() != null) {
          emit(new IntentEvent.BudgetExhausted(id, answer.url().host()));
        }
        return park(pace.stop(), pace.due(), pace.refusal());
      }
      discardHeld();
      if (wire.stopped() != null) {
        return park(PendingReason.INTERRUPTED, pace.due(), null);
      }
      String cause = Pacer.serverChose(answer.response())
          ? again.cause() + ", Retry-After" : again.cause();
      emit(new IntentEvent.RetryScheduled(id, keeper.attempts() + 1, pace.delay(), cause));
      if (!wire.pause(pace.delay())) {
        return park(PendingReason.INTERRUPTED, pace.due(), null);
      }
      exchange = next;
      refresh = again.refreshCredentials();
      processing = again.processing();
    }
  }

  /**
   * {@code next} without user info in its URL: a status URL a server named with {@code
   * user:password@} is polled, and stored, without it (a record never holds a credential).
   */
  private static Exchange withoutUserInfo(Exchange next) {
    HttpUrl url = next.url();
    if (url.username().isEmpty() && url.password().isEmpty()) {
      return next;
    }
    HttpUrl bare = url.newBuilder().username("").password("").build();
    return next.isPoll() ? Exchange.poll(bare) : Exchange.submit(bare);
  }

  /** Makes the next exchange's status URL durable, so a resume polls it (or resends). */
  private void follow(Exchange current, Exchange next, Answer answer) {
    boolean replayed = answer.response() != null && s.dialect().isReplay(answer.response());
    if (next.isPoll()) {
      keeper.pollNext(next.url().toString(), answer.response(), replayed);
    } else if (current.isPoll()) {
      keeper.pollNext(null, answer.response(), replayed);
    }
  }

  private Wire.Sent attempt(Exchange exchange, boolean refresh, Pacer pacer) {
    int n = keeper.attemptStarting();
    pacer.attempted();
    attemptsThisDrive++;
    emit(new IntentEvent.AttemptStarted(id, n, exchange.isPoll() ? "GET"
        : keeper.record().method(), exchange.url().host(), exchange.isPoll()));
    long start = System.nanoTime();
    Wire.Sent sent = wire.send(keeper.record(), exchange, refresh, pacer.attemptTimeoutMillis());
    Answer answer = sent.answer();
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    if (answer.failure() != null) {
      emit(new IntentEvent.AttemptEnded(id, n, -1, answer.failure().getClass().getSimpleName(),
          elapsed));
      lastFailure = answer.failure();
      failures.add(lastFailure);
    } else {
      emit(new IntentEvent.AttemptEnded(id, n, answer.response().status(), null, elapsed));
      lastResponse = answer.response();
      lastFailure = null;
    }
    if (!answer.provablyUnsent()) {
      keeper.attemptMayHaveReached();
    }
    return sent;
  }

  private boolean withinRetention() {
    IntentRecord record = keeper.record();
    return now().isBefore(record.expiresAt())
        && now().isBefore(record.createdAt().plus(s.keyRetention()));
  }

  private DriveEnd finish(Step.Finish finish) {
    IntentState state = finish.state();
    Duration retention = state.isTerminal() ? s.finishedRetention() : s.keyRetention();
    keeper.settle(state, finish.response(), finish.replayed(), finish.reason(), retention);
    emit(finish.event());
    return settled(held);
  }

  private DriveEnd settled(Wire.Sent last) {
    Wire.Sent out = last;
    held = null;
    return new DriveEnd(DriveEnd.Kind.SETTLED, keeper.record(),
        out == null ? null : out.answer(), out == null ? null : out.live(), null, null, null,
        null);
  }

  /**
   * Waits while the network gate is closed, in slices so a stop (a canceled call, a closed
   * client) ends the wait; parks {@code OFFLINE} when the deadline comes first.
   */
  private DriveEnd awaitGate(Pacer pacer) {
    if (s.gate().isOpen()) {
      return null;
    }
    CompletableFuture<Void> open = new CompletableFuture<>();
    s.gate().whenOpen(() -> open.complete(null));
    // The wait is measured on the system's timer: the drive's clock may be a simulated one.
    long left = Duration.between(now(), pacer.deadline()).toNanos();
    long start = System.nanoTime();
    try {
      while (true) {
        long remaining = left - (System.nanoTime() - start);
        if (remaining <= 0) {
          return park(PendingReason.OFFLINE, null, null);
        }
        if (wire.stopped() != null) {
          return park(PendingReason.INTERRUPTED, null, null);
        }
        try {
          open.get(Math.min(remaining, GATE_SLICE.toNanos()), TimeUnit.NANOSECONDS);
          return null;
        } catch (TimeoutException stillClosed) {
          // Check the deadline and the stop again.
        }
      }
    } catch (ExecutionException e) {
      return park(PendingReason.OFFLINE, null, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return park(PendingReason.INTERRUPTED, null, null);
    }
  }

  private DriveEnd park(PendingReason reason, Instant due, Throwable cause) {
    String detail = describeLast();
    String stop = wire.stopped();
    if (reason == PendingReason.INTERRUPTED && stop != null) {
      detail = stop + "; " + detail;
    }
    return parkWith(reason, detail, due, cause);
  }

  private DriveEnd parkWith(PendingReason reason, String detail, Instant due, Throwable cause) {
    Instant next = due != null ? due : reason == PendingReason.NO_STATUS_URL
        || reason == PendingReason.AMBIGUOUS_ANSWER ? now().plus(s.policy().maxDelay()) : null;
    keeper.park(reason, detail, next, lastResponse);
    emit(new IntentEvent.GaveUpUnknown(id, reason, detail));
    Wire.Sent last = held;
    held = null;
    return new DriveEnd(DriveEnd.Kind.PARKED, keeper.record(),
        last == null ? null : last.answer(), last == null ? null : last.live(), reason, detail,
        next, failures.attachTo(cause != null ? cause : lastFailure));
  }

  private String describeLast() {
    int n = keeper.attempts();
    if (attemptsThisDrive == 0) {
      return "no attempt was sent in this drive";
    }
    if (lastFailure instanceof ConnectException || lastFailure instanceof UnknownHostException) {
      return "attempt " + n + " could not connect (" + lastFailure.getClass().getSimpleName() + ")";
    }
    if (lastFailure != null) {
      return "attempt " + n + " got no answer (" + lastFailure.getClass().getSimpleName()
          + "); the server may have processed it";
    }
    return "attempt " + n + " was answered " + lastResponse.status();
  }

  private DriveEnd reconcile() {
    IntentRecord record = keeper.record();
    Reconciler.Resolution resolution;
    try {
      resolution = s.reconciler().reconcile(record);
    } catch (Exception e) {
      return new DriveEnd(DriveEnd.Kind.RECONCILE, record, null, null, null,
          "the reconciler failed (" + e.getClass().getSimpleName() + "); the record is unchanged",
          null, e);
    }
    if (resolution == null || resolution.state() == IntentState.NEEDS_RECONCILIATION) {
      String reason = resolution == null ? "the reconciler gave no answer" : resolution.reason();
      keeper.reconcile(reason);
      return new DriveEnd(DriveEnd.Kind.RECONCILE, keeper.record(), null, null, null, reason,
          null, null);
    }
    int status = resolution.response().status();
    IntentEvent event = resolution.state() == IntentState.COMPLETED
        ? new IntentEvent.Completed(id, status, false)
        : new IntentEvent.Rejected(id, status);
    return finish(new Step.Finish(resolution.state(), resolution.response(), false,
        resolution.reason(), event));
  }

  private void discardHeld() {
    if (held != null) {
      held.discard();
      held = null;
    }
  }

  private void emit(IntentEvent event) {
    s.listener().onEvent(event);
  }

  private Instant now() {
    return s.clock().instant();
  }
}
