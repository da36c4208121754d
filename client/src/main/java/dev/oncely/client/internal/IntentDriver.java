package dev.oncely.client.internal;

import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentState;
import dev.oncely.client.PendingReason;
import dev.oncely.client.Reconciler;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.StoreException;
import dev.oncely.client.spi.StoredResponse;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import okhttp3.HttpUrl;
import okhttp3.Request;

/**
 * One drive of one intent for the intent API: a sequencer over the shared stages. {@link
 * RecordKeeper} makes every transition durable, {@link AttemptBridge} turns the record into
 * requests and responses into answers, {@link AnswerPolicy} decides what each answer means, and
 * {@link Pacer} says how long to wait and when to stop. The driver only runs them in order and
 * persists the outcome before returning it. Not thread-safe: the client runs one driver per intent
 * in a process; compare-and-set stops a second driver elsewhere.
 */
public final class IntentDriver {
  private final EngineConfig c;
  private final IntentId id;
  private final RecordKeeper keeper;
  private final boolean claimed;
  private final AttemptBridge bridge;
  private final Failures failures = new Failures();
  private StoredResponse lastResponse;
  private IOException lastFailure;
  private int attemptsThisDrive;

  private IntentDriver(EngineConfig c, IntentRecord record, boolean claimed) {
    this.c = c;
    this.id = record.id();
    this.claimed = claimed;
    this.keeper = new RecordKeeper(c.store(), c.clock(), record,
        !claimed && RecordKeeper.loadedMaybeDelivered(record));
    this.lastResponse = record.lastResponse();
    this.bridge = new AttemptBridge(c);
  }

  /**
   * Drives {@code record} until it has an outcome or the drive gives up; never throws.
   *
   * @param claimed true when the caller has just created {@code record} in state {@code
   *     IN_FLIGHT} (revision 0) and nothing was sent for it yet: that create was the claim
   */
  public static IntentOutcome drive(EngineConfig config, IntentRecord record, boolean claimed) {
    return new IntentDriver(config, record, claimed).run();
  }

  private IntentOutcome run() {
    try {
      return runOwned();
    } catch (RecordKeeper.LostOwnership e) {
      try {
        return c.store().get(id).map(Outcomes::of).orElseGet(this::lostPending);
      } catch (StoreException again) {
        return lostPending();
      }
    } catch (StoreException e) {
      return new IntentOutcome.Pending(id, PendingReason.STORE_FAILED,
          "the store failed (" + e.getClass().getSimpleName() + "); the last durable state is kept",
          null, lastResponse, e);
    }
  }

  private IntentOutcome lostPending() {
    return new IntentOutcome.Pending(id, PendingReason.DRIVEN_ELSEWHERE,
        "another client instance or process changed the record", null, lastResponse, null);
  }

  private IntentOutcome runOwned() {
    IntentRecord record = keeper.record();
    if (record.state().isTerminal()) {
      return Outcomes.of(record);
    }
    if (record.state() == IntentState.NEEDS_RECONCILIATION) {
      return reconcile();
    }
    if (keeper.maybeDelivered() && !withinRetention()) {
      String reason = "older than the server's key retention (" + c.keyRetention()
          + "): resending could create a second effect";
      keeper.reconcile(reason);
      emit(new IntentEvent.NeedsReconciliation(id, reason));
      return reconcile();
    }
    Instant notBefore = record.nextAttemptAt();
    if (!claimed) {
      keeper.claim(c.dialect().keyHeader(), c.dialect().formatKey(id.key()));
    }
    Pacer pacer = new Pacer(c.policy(), c.budget(),
        new Waits(c.policy(), c.random(), c.listener(), id), c.clock());
    if (notBefore != null && now().isBefore(notBefore)) {
      // The last drive stopped with a wait still owed (backoff or Retry-After): honour it.
      Duration owed = Duration.between(now(), notBefore);
      emit(new IntentEvent.RetryScheduled(id, keeper.attempts() + 1, owed,
          "waiting for the stored next attempt time"));
      if (!sleep(owed)) {
        return park(PendingReason.INTERRUPTED, notBefore, null);
      }
    }
    HttpUrl intentUrl = HttpUrl.get(record.url());
    AnswerPolicy policy = new AnswerPolicy(c.dialect(), id, intentUrl);
    Exchange exchange = record.pollUrl() != null
        ? Exchange.poll(HttpUrl.get(record.pollUrl())) : Exchange.submit(intentUrl);
    boolean refresh = false;
    boolean processing = record.pollUrl() != null;
    while (true) {
      IntentOutcome blocked = awaitGate(pacer);
      if (blocked != null) {
        return blocked;
      }
      if (c.calls().isClosed()) {
        return park(PendingReason.INTERRUPTED, null, null);
      }
      if (pacer.pastDeadline()) {
        return park(processing ? PendingReason.STILL_PROCESSING
            : PendingReason.DEADLINE_EXCEEDED, null, null);
      }
      boolean deliveredBefore = keeper.maybeDelivered();
      Answer answer = attempt(exchange, refresh, pacer);
      Step step = policy.decide(exchange, deliveredBefore, answer, withinRetention());
      if (answer.response() != null && answer.response().status() < 500
          && answer.response().status() != 429) {
        c.budget().recordSuccess(answer.url().host());
      }
      if (step instanceof Step.Finish finish) {
        return finish(finish);
      }
      if (step instanceof Step.Park stop) {
        return parkNow(stop.reason(), stop.detail(), null, null);
      }
      Step.Again again = (Step.Again) step;
      if (again.event() != null) {
        emit(again.event());
      }
      follow(exchange, again.next(), answer);
      Pacer.Pace pace = pacer.next(answer.response(), again.chargeBudget(), again.processing(),
          answer.url().host());
      if (!pace.goesOn()) {
        if (pace.refusal() != null) {
          emit(new IntentEvent.BudgetExhausted(id, answer.url().host()));
        }
        return park(pace.stop(), pace.due(), pace.refusal());
      }
      if (c.calls().isClosed()) {
        return park(PendingReason.INTERRUPTED, pace.due(), null);
      }
      String cause = Pacer.serverChose(answer.response())
          ? again.cause() + ", Retry-After" : again.cause();
      emit(new IntentEvent.RetryScheduled(id, keeper.attempts() + 1, pace.delay(), cause));
      if (!sleep(pace.delay())) {
        return park(PendingReason.INTERRUPTED, pace.due(), null);
      }
      exchange = again.next();
      refresh = again.refreshCredentials();
      processing = again.processing();
    }
  }

  /** Makes the next exchange's status URL durable, so a resume polls it (or resends). */
  private void follow(Exchange current, Exchange next, Answer answer) {
    boolean replayed = answer.response() != null && c.dialect().isReplay(answer.response());
    if (next.isPoll()) {
      keeper.pollNext(next.url().toString(), answer.response(), replayed);
    } else if (current.isPoll()) {
      keeper.pollNext(null, answer.response(), replayed);
    }
  }

  private Answer attempt(Exchange exchange, boolean refresh, Pacer pacer) {
    int n = keeper.attemptStarting();
    pacer.attempted();
    attemptsThisDrive++;
    Request request;
    try {
      request = bridge.request(keeper.record(), exchange, refresh);
    } catch (IOException e) {
      // The provider failed: nothing was sent, so this attempt cannot have reached the server.
      emit(new IntentEvent.AttemptStarted(id, n, exchange.isPoll() ? "GET"
          : keeper.record().method(), exchange.url().host(), exchange.isPoll()));
      emit(new IntentEvent.AttemptEnded(id, n, -1, e.getClass().getSimpleName(), Duration.ZERO));
      Answer unsent = Answer.unsent(exchange.url(), e);
      remember(unsent);
      return unsent;
    }
    emit(new IntentEvent.AttemptStarted(id, n, request.method(), exchange.url().host(),
        exchange.isPoll()));
    long start = System.nanoTime();
    Answer answer = bridge.send(request, pacer.attemptTimeoutMillis());
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    if (answer.failure() != null) {
      emit(new IntentEvent.AttemptEnded(id, n, -1, answer.failure().getClass().getSimpleName(),
          elapsed));
    } else {
      emit(new IntentEvent.AttemptEnded(id, n, answer.response().status(), null, elapsed));
    }
    if (!answer.provablyUnsent()) {
      keeper.attemptMayHaveReached();
    }
    remember(answer);
    return answer;
  }

  private void remember(Answer answer) {
    if (answer.failure() != null) {
      lastFailure = answer.failure();
      failures.add(lastFailure);
    } else {
      lastResponse = answer.response();
      lastFailure = null;
    }
  }

  private boolean withinRetention() {
    IntentRecord record = keeper.record();
    return now().isBefore(record.expiresAt())
        && now().isBefore(record.createdAt().plus(c.keyRetention()));
  }

  private IntentOutcome finish(Step.Finish finish) {
    IntentState state = finish.state();
    Duration retention = state.isTerminal() ? c.finishedRetention() : c.keyRetention();
    keeper.settle(state, finish.response(), finish.replayed(), finish.reason(), retention);
    if (state.isTerminal()) {
      c.finished().put(id, keeper.record());
    }
    emit(finish.event());
    return Outcomes.of(keeper.record());
  }

  private IntentOutcome awaitGate(Pacer pacer) {
    if (c.gate().isOpen()) {
      return null;
    }
    CompletableFuture<Void> open = new CompletableFuture<>();
    c.gate().whenOpen(() -> open.complete(null));
    Duration remaining = Duration.between(now(), pacer.deadline());
    try {
      if (remaining.isNegative() || remaining.isZero()) {
        throw new TimeoutException();
      }
      open.get(remaining.toNanos(), TimeUnit.NANOSECONDS);
      return null;
    } catch (TimeoutException | ExecutionException e) {
      return park(PendingReason.OFFLINE, null, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return park(PendingReason.INTERRUPTED, null, null);
    }
  }

  private boolean sleep(Duration delay) {
    try {
      c.sleeper().sleep(delay);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private IntentOutcome park(PendingReason reason, Instant due, Throwable cause) {
    return parkNow(reason, describeLast(), due, cause);
  }

  private IntentOutcome parkNow(PendingReason reason, String detail, Instant due,
      Throwable cause) {
    Instant next = due != null ? due : reason == PendingReason.NO_STATUS_URL
        || reason == PendingReason.AMBIGUOUS_ANSWER ? now().plus(c.policy().maxDelay()) : null;
    StoredResponse keep = lastResponse;
    keeper.park(reason, detail, next, keep);
    emit(new IntentEvent.GaveUpUnknown(id, reason, detail));
    return new IntentOutcome.Pending(id, reason, detail, next, keep,
        failures.attachTo(cause != null ? cause : lastFailure));
  }

  private String describeLast() {
    int n = keeper.attempts();
    if (attemptsThisDrive == 0) {
      return "no attempt was sent in this drive";
    }
    if (lastFailure instanceof java.net.ConnectException
        || lastFailure instanceof java.net.UnknownHostException) {
      return "attempt " + n + " could not connect (" + lastFailure.getClass().getSimpleName() + ")";
    }
    if (lastFailure != null) {
      return "attempt " + n + " got no answer (" + lastFailure.getClass().getSimpleName()
          + "); the server may have processed it";
    }
    return "attempt " + n + " was answered " + lastResponse.status();
  }

  private IntentOutcome reconcile() {
    IntentRecord record = keeper.record();
    Reconciler.Resolution resolution;
    try {
      resolution = c.reconciler().reconcile(record);
    } catch (Exception e) {
      return new IntentOutcome.NeedsReconciliation(id,
          "the reconciler failed (" + e.getClass().getSimpleName() + "); the record is unchanged",
          record.lastResponse());
    }
    if (resolution == null || resolution.state() == IntentState.NEEDS_RECONCILIATION) {
      String reason = resolution == null ? "the reconciler gave no answer" : resolution.reason();
      keeper.reconcile(reason);
      return Outcomes.of(keeper.record());
    }
    int status = resolution.response().status();
    IntentEvent event = resolution.state() == IntentState.COMPLETED
        ? new IntentEvent.Completed(id, status, false)
        : new IntentEvent.Rejected(id, status);
    return finish(new Step.Finish(resolution.state(), resolution.response(), false,
        resolution.reason(), event));
  }

  private void emit(IntentEvent event) {
    c.listener().onEvent(event);
  }

  private Instant now() {
    return c.clock().instant();
  }
}
