package dev.oncely.client.internal.drive;

import dev.oncely.client.internal.Failures;
import dev.oncely.client.internal.ParsedUrls;
import dev.oncely.client.internal.pacing.Pacer;
import dev.oncely.client.internal.pacing.RecordTime;
import dev.oncely.client.internal.pacing.Waits;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.PendingReason;
import dev.oncely.client.Reconciler;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.event.IntentEvent;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import okhttp3.HttpUrl;

/**
 * The one drive loop of both entry points: claim, pace, gate, attempt, judge, record, park,
 * finish. {@link RecordKeeper} makes every transition durable, a {@link Wire} puts each attempt on
 * the wire, {@link AnswerPolicy} decides what each answer means, and {@link Pacer} says how long to
 * wait and when to stop. The loop only runs them in order, and persists what it learned before it
 * ends. The loop never waits itself: where a wait is owed (backoff, {@code Retry-After}, a
 * closed network gate) it returns a {@link Next} that says how long, and its runner ({@link
 * DriveRun}) resumes it when the wait is over, on a timer instead of a held thread, or stops it.
 * Nothing but a {@link DriveEnd} ends a drive: an unexpected exception parks the record {@link
 * PendingReason#UNEXPECTED_FAILURE}, maybe delivered once an attempt started. Not thread-safe: one
 * step at a time, and one loop per intent in a process ({@link DriveRegistry}); compare-and-set
 * stops a second driver elsewhere.
 */
public final class DriveLoop {
  private static final String PAST_RETENTION = "older than the server's key retention (%s):"
      + " resending could create a second effect";
  private static final String STEPPED_BACK = "the stored next attempt time lay %s ahead, longer"
      + " than any wait the policy asks (%s): the wall clock stepped back since it was written";

  /** What the loop asks of its runner after a step. */
  public sealed interface Next {}

  /** The drive ended. */
  public record Ended(DriveEnd end) implements Next {}

  /** Resume the loop after {@code delay}, or stop it. */
  public record Wait(Duration delay) implements Next {}

  /**
   * Resume the loop once the network gate opens, or after {@code limit} (the deadline), or stop
   * it.
   */
  public record WaitForGate(Duration limit) implements Next {}

  /** Where a waiting loop resumes. */
  private enum Waiting { NONE, OWED, GATE, RETRY }

  private final DriveSettings s;
  private final Wire wire;
  private final IntentId id;
  private final RecordKeeper keeper;
  private final RecordTime time;
  private final boolean claimed;
  private final Failures failures = new Failures();
  private StoredResponse lastResponse;
  private IOException lastFailure;
  /** What escaped the wire during the last attempt, or null. */
  private Throwable attemptEscaped;
  private int attemptsThisDrive;
  private Wire.Sent held;
  private Pacer pacer;
  /** The intent's own policy if its record carries one, else the settings'. */
  private final RetryPolicy retryPolicy;
  private AnswerPolicy policy;
  private Exchange exchange;
  private Exchange nextExchange;
  private PendingReason processing;
  private Waiting waiting = Waiting.NONE;
  private Instant waitDue;
  private Step.Again nextAgain;
  /** Told before the drive's last write; see {@link #beforeLastWrite}. */
  private Runnable ending = () -> {};

  private DriveLoop(DriveSettings settings, Wire wire, IntentRecord record, boolean claimed,
      boolean deliveredBefore) {
    this.s = settings;
    this.wire = wire;
    this.id = record.id();
    this.claimed = claimed;
    this.time = new RecordTime(settings.clock(), record);
    this.keeper = claimed
        ? RecordKeeper.created(settings.store(), time, record, deliveredBefore)
        : new RecordKeeper(settings.store(), time, record,
            deliveredBefore || RecordKeeper.loadedMaybeDelivered(record));
    this.lastResponse = record.lastResponse();
    this.retryPolicy = record.retryPolicy() != null ? record.retryPolicy() : settings.policy();
  }

  /**
   * A loop for {@code record}; {@link #start()} runs its first step.
   *
   * @param claimed true when the caller has just created {@code record} in state {@code
   *     IN_FLIGHT} and nothing was sent for it yet: that create was the claim
   * @param deliveredBefore whether something outside the record knows that a write of the intent
   *     may already have reached the server (an earlier run of the same call)
   */
  public static DriveLoop of(DriveSettings settings, Wire wire, IntentRecord record,
      boolean claimed, boolean deliveredBefore) {
    return new DriveLoop(settings, wire, record, claimed, deliveredBefore);
  }

  /**
   * Has {@code hook} run right before the loop makes its last write (parks, settles, or hands the
   * record to reconciliation), before any event of its end: its runner marks the {@link Drive}
   * ending there, so a caller who has seen that write or event is not joined to a drive that only
   * stops. Call before {@link #start()}.
   */
  void beforeLastWrite(Runnable hook) {
    this.ending = hook;
  }

  /** Runs the loop until it ends or must wait; never throws. */
  public Next start() {
    return guarded(Waiting.NONE);
  }

  /** Runs the loop on after the wait it asked for is over; never throws. */
  public Next resume() {
    return guarded(waiting);
  }

  /**
   * Ends a waiting loop without another attempt: the record is parked {@code PENDING} ({@link
   * PendingReason#INTERRUPTED}) and stays due when the wait would have ended; never throws.
   *
   * @param why the stop, in safe words (the client or interceptor was closed, the call canceled)
   */
  public DriveEnd stop(String why) {
    try {
      return parkWith(PendingReason.INTERRUPTED, why + "; " + describeLast(), waitDue, null);
    } catch (RecordKeeper.LostOwnership e) {
      return lost();
    } catch (StoreException e) {
      return storeFailed(e);
    } catch (RuntimeException e) {
      return unexpected(e);
    }
  }

  private Next guarded(Waiting from) {
    try {
      Waiting was = from;
      waiting = Waiting.NONE;
      return switch (was) {
        case NONE -> begin();
        case OWED -> loop();
        // Woken with the gate still closed: the wait ran to the deadline, measured on the
        // system's timer (the drive's clock may be a simulated one).
        case GATE -> s.gate().isOpen() ? loop()
            : new Ended(park(PendingReason.OFFLINE, null, null));
        case RETRY -> afterRetryWait();
      };
    } catch (RecordKeeper.LostOwnership e) {
      discardHeld();
      return new Ended(lost());
    } catch (StoreException e) {
      discardHeld();
      return new Ended(storeFailed(e));
    } catch (RuntimeException e) {
      discardHeld();
      return new Ended(unexpected(e));
    }
  }

  private DriveEnd lost() {
    IntentRecord now;
    try {
      now = s.store().get(id).orElse(null);
    } catch (RuntimeException again) {
      now = null;
    }
    return DriveEnd.lost(now, "another client instance or process changed the record");
  }

  private DriveEnd storeFailed(StoreException e) {
    return DriveEnd.storeFailed(keeper.record(), "the store failed ("
        + e.getClass().getSimpleName() + "); the last durable state is kept",
        failures.attachTo(e));
  }

  /** Parks the record after an exception nothing expected, telling whether anything was sent. */
  private DriveEnd unexpected(Throwable e) {
    String detail = "an unexpected " + e.getClass().getSimpleName() + " stopped the drive; "
        + describeLast();
    try {
      ending.run();
      keeper.park(PendingReason.UNEXPECTED_FAILURE, detail, null, lastResponse);
    } catch (RuntimeException parkFailed) {
      e.addSuppressed(parkFailed);
    }
    emit(new IntentEvent.GaveUpUnknown(id, PendingReason.UNEXPECTED_FAILURE, detail));
    return DriveEnd.parked(keeper.record(), null, null, PendingReason.UNEXPECTED_FAILURE,
        detail, null, failures.attachTo(e));
  }

  private Next begin() {
    IntentRecord record = keeper.record();
    if (record.state().isTerminal()) {
      return new Ended(settled(null));
    }
    if (record.state() == IntentState.NEEDS_RECONCILIATION) {
      return new Ended(reconcile());
    }
    if (keeper.maybeDelivered() && !withinRetention()) {
      return new Ended(pastRetention());
    }
    Instant notBefore = record.nextAttemptAt();
    pacer = new Pacer(retryPolicy, s.budget(),
        new Waits(retryPolicy, s.random(), s.listener(), id), s.clock());
    // An IN_FLIGHT record's time is how long its last drive held it (busy until), not a wait
    // owed to the server: a resume means that drive is gone (a crash, or a lease that ran out).
    boolean owed = !claimed && record.state() != IntentState.IN_FLIGHT && notBefore != null
        && now().isBefore(notBefore);
    String steppedBack = null;
    if (owed && Duration.between(now(), notBefore).compareTo(longestOwedWait()) > 0) {
      // Only wall time crosses a restart, and it went back: the wait still owed cannot be
      // measured, but it is no longer than the policy could have asked.
      steppedBack = String.format(STEPPED_BACK, Duration.between(now(), notBefore),
          longestOwedWait());
      notBefore = now().plus(longestOwedWait());
    }
    if (owed && Duration.between(now(), notBefore).compareTo(pacer.timeLeft()) >= 0) {
      // The wait still owed (backoff or Retry-After) outlasts this drive: it stops at once with
      // that due time, and nothing is claimed. A cut wait only gets here when the policy's
      // longest wait outlasts its own deadline, and the next resume after it attempts.
      return new Ended(park(PendingReason.DEADLINE_EXCEEDED, notBefore, null));
    }
    if (!claimed) {
      // The claim counts the attempt that follows it, after the wait still owed if there is one:
      // the stored count is true while that attempt is on the wire, and the record is held until
      // the attempt has timed out.
      keeper.claim(s.dialect().keyHeader(), s.dialect().formatKey(id.key()),
          owed ? notBefore.plus(retryPolicy.attemptTimeout()) : busyUntil(), true);
    }
    HttpUrl intentUrl = ParsedUrls.get(record.url());
    policy = new AnswerPolicy(s.dialect(), id, intentUrl);
    exchange = record.pollUrl() != null
        ? Exchange.poll(ParsedUrls.get(record.pollUrl())) : Exchange.submit(intentUrl);
    processing = record.pollUrl() != null ? PendingReason.STILL_PROCESSING : null;
    if (owed) {
      // The last drive stopped with a wait still owed: honour it before the first attempt.
      Duration left = Duration.between(now(), notBefore);
      emit(new IntentEvent.RetryScheduled(id, keeper.attempts() + 1, left,
          steppedBack != null ? steppedBack : "waiting for the stored next attempt time"));
      return waitFor(Waiting.OWED, notBefore, left);
    }
    return loop();
  }

  /** The loop after a retry wait: the next exchange, under a renewed claim. */
  private Next afterRetryWait() {
    Step.Again again = nextAgain;
    nextAgain = null;
    exchange = nextExchange;
    processing = again.processing();
    return loop();
  }

  /** Attempts until an outcome, a stop, or a wait. */
  private Next loop() {
    while (true) {
      if (!s.gate().isOpen()) {
        Duration left = pacer.timeLeft();
        if (left.isZero()) {
          return new Ended(park(PendingReason.OFFLINE, null, null));
        }
        return waitFor(Waiting.GATE, null, left);
      }
      if (wire.stopped() != null) {
        return new Ended(park(PendingReason.INTERRUPTED, null, null));
      }
      if (pacer.pastDeadline()) {
        return new Ended(park(processing != null ? processing
            : PendingReason.DEADLINE_EXCEEDED, null, null));
      }
      boolean deliveredBefore = keeper.maybeDelivered();
      if (deliveredBefore && !exchange.isPoll() && !withinRetention()) {
        // A long drive (waits, polls) can cross the key retention: the server may have forgotten
        // the key, and a resend could be a second effect.
        return new Ended(pastRetention());
      }
      held = attempt(exchange, pacer);
      Answer answer = held.answer();
      if (answer.failure() != null && wire.stopped() != null) {
        return new Ended(park(PendingReason.INTERRUPTED, null, null));
      }
      Step step = policy.decide(exchange, deliveredBefore, answer, withinRetention());
      pacer.answered(answer.url().host(), answer.response());
      if (step instanceof Step.Finish finish) {
        return new Ended(finish(finish));
      }
      if (step instanceof Step.Park stop) {
        return new Ended(parkWith(stop.reason(), stop.detail(), null, null));
      }
      Step.Again again = (Step.Again) step;
      if (again.provedUnprocessed()) {
        keeper.attemptRefused(deliveredBefore);
      }
      if (again.event() != null) {
        emit(again.event());
      }
      Exchange next = withoutUserInfo(again.next());
      follow(exchange, next, answer);
      Pacer.Pace pace = pacer.next(answer.response(), again.resend(), again.processing(),
          answer.url().host());
      if (!pace.goesOn()) {
        if (pace.refusal() != null) {
          emit(new IntentEvent.BudgetExhausted(id, answer.url().host()));
        }
        return new Ended(park(pace.stop(), pace.due(), pace.refusal()));
      }
      discardHeld();
      if (wire.stopped() != null) {
        return new Ended(park(PendingReason.INTERRUPTED, pace.due(), null));
      }
      String cause = Pacer.serverChose(answer.response())
          ? again.cause() + ", Retry-After" : again.cause();
      if (pace.shaped()) {
        cause = cause + ", paced by the retry budget";
      }
      emit(new IntentEvent.RetryScheduled(id, keeper.attempts() + 1, pace.delay(), cause));
      if (pace.delay().isZero()) {
        // An immediate retry writes its count too: the store never shows fewer attempts than
        // the server has seen while one is on the wire.
        keeper.awaitNext(busyUntil());
        exchange = next;
        processing = again.processing();
        continue;
      }
      nextExchange = next;
      nextAgain = again;
      return waitFor(Waiting.RETRY, pace.due(), pace.delay());
    }
  }

  /**
   * Asks the runner for a wait, with the record saying when the intent is due again: a crash or
   * another process's scheduler then sees the wait, not a drive that died.
   */
  private Next waitFor(Waiting where, Instant due, Duration delay) {
    waiting = where;
    waitDue = due;
    if (where == Waiting.GATE) {
      return new WaitForGate(delay);
    }
    if (where == Waiting.RETRY) {
      keeper.awaitNext(due.plus(retryPolicy.attemptTimeout()));
    }
    return new Wait(delay);
  }

  /**
   * The longest wait a drive of this intent can have left owed when it stopped: the policy's cap
   * of one wait ({@code Retry-After} included) and one attempt's timeout. A wait the retry budget
   * stretched may have been longer; it paced the retries of a process whose budget is gone.
   */
  private Duration longestOwedWait() {
    return retryPolicy.maxDelay().plus(retryPolicy.attemptTimeout());
  }

  /** When the attempt about to start stops counting as a live drive: its timeout from now. */
  private Instant busyUntil() {
    return now().plus(retryPolicy.attemptTimeout());
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

  private Wire.Sent attempt(Exchange exchange, Pacer pacer) {
    int n = keeper.attemptStarting();
    pacer.attempted(1);
    attemptsThisDrive++;
    String method = exchange.isPoll() ? "GET" : keeper.record().method();
    emit(new IntentEvent.AttemptStarted(id, n, method, exchange.url().host(), exchange.isPoll()));
    long start = System.nanoTime();
    Wire.Sent sent;
    try {
      sent = wire.send(keeper.record(), exchange, pacer.attemptTimeoutMillis());
    } catch (RuntimeException | Error escaped) {
      // A wire answers every failure (its contract); one that throws anyway may have written
      // the request first: the attempt may have reached the server, and the park says so.
      keeper.attemptMayHaveReached();
      lastResponse = null;
      lastFailure = null;
      attemptEscaped = escaped;
      throw escaped;
    }
    Answer answer = sent.answer();
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    int resends = answer.writes() - 1;
    if (resends > 0) {
      keeper.sentAgainByOthers(resends);
      pacer.attempted(resends);
      // Every request on the wire is one attempt, in the record and in the event stream (the
      // meters and spans count these): the HTTP client's own resends ended the earlier requests
      // without an answer the engine saw, the last one got the answer below.
      for (int k = 0; k < resends; k++) {
        emit(new IntentEvent.AttemptEnded(id, n, -1, IntentEvent.AttemptEnded.RESENT_BY_CLIENT,
            Duration.ZERO));
        n++;
        emit(new IntentEvent.AttemptStarted(id, n, method, exchange.url().host(),
            exchange.isPoll()));
      }
    }
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

  /** Hands a maybe-delivered record past the server's key retention to reconciliation. */
  private DriveEnd pastRetention() {
    String reason = String.format(PAST_RETENTION, s.keyRetention());
    ending.run();
    keeper.reconcile(reason);
    emit(new IntentEvent.NeedsReconciliation(id, reason));
    return reconcile();
  }

  private boolean withinRetention() {
    return time.withinRetention(keeper.record(), s.keyRetention());
  }

  private DriveEnd finish(Step.Finish finish) {
    IntentState state = finish.state();
    Duration retention = state.isTerminal() ? s.finishedRetention() : s.keyRetention();
    ending.run();
    keeper.settle(state, finish.response(), finish.replayed(), finish.reason(), retention,
        s.keepFinishedRequests());
    emit(finish.event());
    return settled(held);
  }

  private DriveEnd settled(Wire.Sent last) {
    Wire.Sent out = last;
    held = null;
    return DriveEnd.settled(keeper.record(), out == null ? null : out.answer(),
        out == null ? null : out.live());
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
        || reason == PendingReason.AMBIGUOUS_ANSWER ? now().plus(retryPolicy.maxDelay()) : null;
    ending.run();
    keeper.park(reason, detail, next, lastResponse);
    emit(new IntentEvent.GaveUpUnknown(id, reason, detail));
    Wire.Sent last = held;
    held = null;
    return DriveEnd.parked(keeper.record(), last == null ? null : last.answer(),
        last == null ? null : last.live(), reason, detail, next,
        failures.attachTo(cause != null ? cause : lastFailure));
  }

  private String describeLast() {
    int n = keeper.attempts();
    if (attemptsThisDrive == 0) {
      return "no attempt was sent in this drive";
    }
    if (attemptEscaped != null || lastFailure == null && lastResponse == null) {
      return "attempt " + n + " ended without an answer; the server may have processed it";
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
      return DriveEnd.reconcile(record, "the reconciler failed ("
          + e.getClass().getSimpleName() + "); the record is unchanged", e);
    }
    if (resolution == null || resolution.state() == IntentState.NEEDS_RECONCILIATION) {
      String reason = resolution == null ? "the reconciler gave no answer" : resolution.reason();
      ending.run();
      keeper.reconcile(reason);
      return DriveEnd.reconcile(keeper.record(), reason, null);
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

  /** The wall time, as due times are stored and compared across processes. */
  private Instant now() {
    return s.clock().wall();
  }
}
