package dev.oncely.client.internal;

import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentState;
import dev.oncely.client.PendingReason;
import dev.oncely.client.Reconciler;
import dev.oncely.client.RetryBudgetExhaustedException;
import dev.oncely.client.dialect.Verdict;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.StoreException;
import dev.oncely.client.spi.StoredResponse;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.Response;

/**
 * One drive of one intent: claims the record (compare-and-set to {@code IN_FLIGHT}), sends attempts
 * with the same key and body bytes, resolves each answer through the dialect, waits between attempts
 * and persists the outcome before returning it. Not thread-safe: the client guarantees one driver
 * per intent in a process; compare-and-set stops a second driver elsewhere.
 */
public final class IntentDriver {
  private final EngineConfig c;
  private final IntentId id;
  private IntentRecord record;
  private int attempts;
  private int attemptsThisDrive;
  private final Waits waits;
  private StoredResponse lastResponse;
  private IOException lastFailure;
  private final Failures failures = new Failures();
  private boolean lastWasAccepted;
  private Instant deadline;

  private final boolean claimed;

  private IntentDriver(EngineConfig c, IntentRecord record, boolean claimed) {
    this.c = c;
    this.id = record.id();
    this.record = record;
    this.claimed = claimed;
    this.attempts = record.attempts();
    this.lastResponse = record.lastResponse();
    this.waits = new Waits(c.policy(), c.random(), c.listener(), id);
  }

  /**
   * Drives {@code record} until it has an outcome or the drive gives up; never throws.
   *
   * @param claimed true when the caller has just created {@code record} in state
   *     {@code IN_FLIGHT} (revision 0): that create was the claim, so no compare-and-set to
   *     {@code IN_FLIGHT} is committed before the first send
   */
  public static IntentOutcome drive(EngineConfig config, IntentRecord record, boolean claimed) {
    return new IntentDriver(config, record, claimed).run();
  }

  private static final class LostOwnership extends RuntimeException {
    private static final long serialVersionUID = 1L;

    LostOwnership() {
      super(null, null, false, false);
    }
  }

  private record Result(StoredResponse response, HttpUrl url, IOException failure) {}

  /** What to do after one attempt: stop with an outcome, or wait and try again. */
  private sealed interface Step permits Done, Retry {}

  private record Done(IntentOutcome outcome) implements Step {}

  private record Retry(Duration delay, String cause, boolean chargeBudget) implements Step {}

  private IntentOutcome run() {
    try {
      return runOwned();
    } catch (LostOwnership e) {
      try {
        return c.store().get(id).map(Outcomes::of).orElseGet(() -> lostPending());
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
    if (record.state().isTerminal()) {
      return Outcomes.of(record);
    }
    if (record.state() == IntentState.NEEDS_RECONCILIATION) {
      return reconcile();
    }
    boolean maybeSent = record.state() != IntentState.NEW
        && (record.attempts() > 0 || record.state() == IntentState.IN_FLIGHT);
    if (maybeSent && !now().isBefore(record.expiresAt())) {
      String reason = "older than the server's key retention (" + c.keyRetention()
          + "): resending could create a second effect";
      update(b -> b.state(IntentState.NEEDS_RECONCILIATION).reason(reason).nextAttemptAt(null));
      emit(new IntentEvent.NeedsReconciliation(id, reason));
      return reconcile();
    }
    Instant notBefore = record.nextAttemptAt();
    if (!claimed) {
      update(b -> b.state(IntentState.IN_FLIGHT).nextAttemptAt(null));
    }
    deadline = now().plus(c.policy().deadline());
    if (notBefore != null && now().isBefore(notBefore)) {
      // The last drive stopped with a wait still owed (backoff or Retry-After): honour it.
      Duration owed = Duration.between(now(), notBefore);
      emit(new IntentEvent.RetryScheduled(id, attempts + 1, owed,
          "waiting for the stored next attempt time"));
      try {
        c.sleeper().sleep(owed);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return giveUp(PendingReason.INTERRUPTED, notBefore, null);
      }
    }
    while (true) {
      IntentOutcome blocked = awaitGate();
      if (blocked != null) {
        return blocked;
      }
      if (!now().isBefore(deadline)) {
        return giveUp(outReason(PendingReason.DEADLINE_EXCEEDED), null, null);
      }
      Result result = attempt();
      attemptsThisDrive++;
      Step step = decide(result);
      if (step instanceof Done done) {
        return done.outcome();
      }
      Retry retry = (Retry) step;
      Instant due = now().plus(retry.delay());
      if (attemptsThisDrive >= c.policy().maxAttempts()) {
        return giveUp(outReason(PendingReason.ATTEMPTS_EXHAUSTED), due, null);
      }
      if (!due.isBefore(deadline)) {
        return giveUp(outReason(PendingReason.DEADLINE_EXCEEDED), due, null);
      }
      if (retry.chargeBudget()) {
        try {
          c.budget().acquireRetry(result.url().host());
        } catch (RetryBudgetExhaustedException e) {
          emit(new IntentEvent.BudgetExhausted(id, result.url().host()));
          return giveUp(PendingReason.RETRY_BUDGET_EXHAUSTED, due, e);
        }
      }
      if (c.calls().isClosed()) {
        return giveUp(PendingReason.INTERRUPTED, due, null);
      }
      emit(new IntentEvent.RetryScheduled(id, attempts + 1, retry.delay(), retry.cause()));
      try {
        c.sleeper().sleep(retry.delay());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return giveUp(PendingReason.INTERRUPTED, due, null);
      }
      if (c.calls().isClosed()) {
        return giveUp(PendingReason.INTERRUPTED, due, null);
      }
    }
  }

  private PendingReason outReason(PendingReason reason) {
    return lastWasAccepted ? PendingReason.STILL_PROCESSING : reason;
  }

  private IntentOutcome awaitGate() {
    if (c.gate().isOpen()) {
      return null;
    }
    CompletableFuture<Void> open = new CompletableFuture<>();
    c.gate().whenOpen(() -> open.complete(null));
    Duration remaining = Duration.between(now(), deadline);
    try {
      if (remaining.isNegative() || remaining.isZero()) {
        throw new TimeoutException();
      }
      open.get(remaining.toNanos(), TimeUnit.NANOSECONDS);
      return null;
    } catch (TimeoutException | ExecutionException e) {
      return giveUp(PendingReason.OFFLINE, null, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return giveUp(PendingReason.INTERRUPTED, null, null);
    }
  }

  private Result attempt() {
    boolean poll = record.pollUrl() != null;
    HttpUrl url = HttpUrl.get(poll ? record.pollUrl() : record.url());
    String method = poll ? "GET" : record.method();
    Request.Builder request = new Request.Builder().url(url);
    record.headers().forEach((name, values) -> values.forEach(v -> request.addHeader(name, v)));
    if (poll) {
      request.get().removeHeader("Content-Type").removeHeader("Content-Length");
    } else {
      request.method(method, HttpParts.body(method, record.body(), record.mediaType()));
      request.header(c.dialect().keyHeader(), c.dialect().formatKey(id.key()));
    }
    int n = ++attempts;
    emit(new IntentEvent.AttemptStarted(id, n, method, url.host(), poll));
    long start = System.nanoTime();
    try {
      Map<String, String> extra;
      try {
        extra = c.headers().headersFor(id, url.toString());
      } catch (Exception e) {
        throw new IOException("header provider failed: " + e.getClass().getSimpleName(), e);
      }
      if (extra != null) {
        extra.forEach(request::header);
      }
      Call call = c.http().newCall(request.build());
      long remainingMs = Math.max(1, Duration.between(now(), deadline).toMillis());
      call.timeout().timeout(Math.min(c.policy().attemptTimeout().toMillis(), remainingMs),
          TimeUnit.MILLISECONDS);
      c.calls().add(call);
      try (Response response = call.execute()) {
        StoredResponse stored = HttpParts.read(response, c.maxResponseBytes());
        emit(new IntentEvent.AttemptEnded(id, n, stored.status(), null, since(start)));
        return new Result(stored, response.request().url(), null);
      } finally {
        c.calls().remove(call);
      }
    } catch (IOException e) {
      emit(new IntentEvent.AttemptEnded(id, n, -1, e.getClass().getSimpleName(), since(start)));
      return new Result(null, url, e);
    }
  }

  private Step decide(Result result) {
    if (result.failure() != null) {
      lastFailure = result.failure();
      failures.add(lastFailure);
      lastWasAccepted = false;
      return retry(null, "no answer (" + result.failure().getClass().getSimpleName() + ")", true);
    }
    StoredResponse response = result.response();
    lastResponse = response;
    lastFailure = null;
    boolean replayed = c.dialect().isReplay(response);
    int status = response.status();
    String host = result.url().host();
    if (record.pollUrl() != null && (status == 404 || status == 410)) {
      lastWasAccepted = false;
      update(b -> b.pollUrl(null).lastResponse(response));
      return retry(response, "status URL answered " + status + "; resending with the same key",
          false);
    }
    Verdict verdict = c.dialect().classify(response);
    switch (verdict) {
      case COMPLETED:
        c.budget().recordSuccess(host);
        return new Done(finish(IntentState.COMPLETED, response, replayed, null,
            new IntentEvent.Completed(id, status, replayed)));
      case REJECTED:
        c.budget().recordSuccess(host);
        return new Done(finish(IntentState.REJECTED, response, replayed,
            "rejected with " + status, new IntentEvent.Rejected(id, status)));
      case PAYLOAD_MISMATCH:
        return new Done(finish(IntentState.KEY_CONFLICT, response, replayed,
            "the server saw this key with another payload (" + status + ")",
            new IntentEvent.PayloadMismatch(id, status)));
      case RECONCILE: {
        String reason = "server error " + status + (replayed
            ? " replayed from the server's idempotency store" : " marked as not retryable")
            + ": resending cannot help";
        return new Done(finish(IntentState.NEEDS_RECONCILIATION, response, replayed, reason,
            new IntentEvent.NeedsReconciliation(id, reason)));
      }
      case ACCEPTED: {
        c.budget().recordSuccess(host);
        lastWasAccepted = true;
        String found = HttpParts.pollUrl(response, result.url());
        String pollUrl = found != null ? found : record.pollUrl();
        emit(new IntentEvent.Accepted(id, pollUrl != null));
        update(b -> b.pollUrl(pollUrl).lastResponse(response).replayed(replayed));
        return retry(response, "202 accepted; " + (pollUrl != null
            ? "polling the status URL" : "resending with the same key"), false);
      }
      case IN_PROGRESS:
        lastWasAccepted = false;
        emit(new IntentEvent.InProgress(id, status));
        return retry(response, "a request with this key is in progress (" + status + ")", false);
      case RETRY:
      default:
        lastWasAccepted = false;
        return retry(response, "transient answer " + status, true);
    }
  }

  private Retry retry(StoredResponse response, String cause, boolean chargeBudget) {
    Duration delay = waits.next(response, now());
    return new Retry(delay, Waits.serverChose(response) ? cause + ", Retry-After" : cause,
        chargeBudget);
  }

  private IntentOutcome finish(IntentState state, StoredResponse response, boolean replayed,
      String reason, IntentEvent event) {
    Instant now = now();
    Duration retention = state.isTerminal() ? c.finishedRetention() : c.keyRetention();
    update(b -> b.state(state).lastResponse(response).replayed(replayed).reason(reason)
        .nextAttemptAt(null).expiresAt(now.plus(retention)));
    if (state.isTerminal()) {
      c.finished().put(id, record);
    }
    emit(event);
    return Outcomes.of(record);
  }

  private IntentOutcome giveUp(PendingReason reason, Instant due, Throwable cause) {
    String detail = describeLast();
    StoredResponse keep = lastResponse;
    update(b -> b.state(IntentState.PENDING).reason(Outcomes.pendingReasonText(reason, detail))
        .nextAttemptAt(due).lastResponse(keep));
    emit(new IntentEvent.GaveUpUnknown(id, reason, detail));
    return new IntentOutcome.Pending(id, reason, detail, due, keep,
        failures.attachTo(cause != null ? cause : lastFailure));
  }

  private String describeLast() {
    if (attemptsThisDrive == 0) {
      return "no attempt was sent in this drive";
    }
    if (lastFailure instanceof java.net.ConnectException
        || lastFailure instanceof java.net.UnknownHostException) {
      return "attempt " + attempts + " could not connect (" + lastFailure.getClass().getSimpleName()
          + ")";
    }
    if (lastFailure != null) {
      return "attempt " + attempts + " got no answer (" + lastFailure.getClass().getSimpleName()
          + "); the server may have processed it";
    }
    return "attempt " + attempts + " was answered " + lastResponse.status();
  }

  private IntentOutcome reconcile() {
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
      update(b -> b.state(IntentState.NEEDS_RECONCILIATION).reason(reason).nextAttemptAt(null));
      return Outcomes.of(record);
    }
    int status = resolution.response().status();
    IntentEvent event = resolution.state() == IntentState.COMPLETED
        ? new IntentEvent.Completed(id, status, false)
        : new IntentEvent.Rejected(id, status);
    return finish(resolution.state(), resolution.response(), false, resolution.reason(), event);
  }

  private void update(Consumer<IntentRecord.Builder> change) {
    IntentRecord.Builder b = record.successor().updatedAt(now()).attempts(attempts);
    change.accept(b);
    IntentRecord next = b.build();
    if (!c.store().compareAndSet(record, next)) {
      throw new LostOwnership();
    }
    record = next;
  }

  private void emit(IntentEvent event) {
    c.listener().onEvent(event);
  }

  private Instant now() {
    return c.clock().instant();
  }

  private static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }
}
