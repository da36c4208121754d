package dev.oncely.client.internal;

import dev.oncely.client.BodyTooLargeException;
import dev.oncely.client.IntentState;
import dev.oncely.client.PayloadMismatchException;
import dev.oncely.client.PendingReason;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryBudgetExhaustedException;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.Sleeper;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Verdict;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.IntentStore;
import dev.oncely.client.spi.SecretHeaders;
import dev.oncely.client.spi.StoredResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.Random;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.Buffer;

/**
 * One call through the {@code IdempotencyInterceptor}: key, buffered body, the attempt loop inside
 * {@code intercept}, and the optional record. Lives for one {@code intercept} invocation.
 */
public final class InterceptedCall {
  /** Response header added when the answer comes from the store instead of the network. */
  public static final String STORED_RESPONSE_HEADER = "Oncely-Stored-Response";
  private static final Duration SLICE = Duration.ofMillis(100);

  /** The interceptor's settings. */
  public record Config(Dialect dialect, RetryPolicy policy, RetryBudget budget,
      IntentListener listener, Clock clock, Sleeper sleeper, Random random,
      IntentStore store, Set<String> methods, Function<Request, String> scope,
      Function<Request, String> operation, long maxBodyBytes, Duration keyRetention,
      long maxResponseBytes) {}

  private final Config c;
  private final Interceptor.Chain chain;
  private IntentId id;
  private IntentRecord record;
  private int attempts;
  private Waits waits;
  private Instant deadline;
  private final Failures failures = new Failures();

  /** Prepares the call for {@code chain}. */
  public InterceptedCall(Config config, Interceptor.Chain chain) {
    this.c = config;
    this.chain = chain;
  }

  /** Runs the call to its final response. */
  public Response run() throws IOException {
    Request original = chain.request();
    Request.Builder builder = original.newBuilder();
    String header = original.header(c.dialect().keyHeader());
    String key;
    if (header != null) {
      String parsed = c.dialect().parseKey(header);
      key = parsed != null ? parsed : header.trim();
    } else {
      key = Keys.random();
      builder.header(c.dialect().keyHeader(), c.dialect().formatKey(key));
    }
    byte[] body = new byte[0];
    MediaType type = null;
    if (original.body() != null) {
      body = buffer(original.body());
      type = original.body().contentType();
      builder.method(original.method(), RequestBody.create(body, type));
    }
    Request request = builder.build();
    id = IntentId.of(c.scope().apply(original), c.operation().apply(original), key);
    waits = new Waits(c.policy(), c.random(), c.listener(), id);
    if (c.store() != null) {
      Response stored = openRecord(request, body, type);
      if (stored != null) {
        return stored;
      }
    }
    deadline = now().plus(c.policy().deadline());
    return loop(request);
  }

  private byte[] buffer(RequestBody body) throws IOException {
    long declared = body.contentLength();
    if (declared > c.maxBodyBytes()) {
      throw new BodyTooLargeException(declared, c.maxBodyBytes());
    }
    Buffer buffer = new Buffer();
    body.writeTo(buffer);
    if (buffer.size() > c.maxBodyBytes()) {
      throw new BodyTooLargeException(buffer.size(), c.maxBodyBytes());
    }
    return buffer.readByteArray();
  }

  private Response openRecord(Request request, byte[] body, MediaType type) {
    String mediaType = type == null ? null : type.toString();
    String fingerprint = fingerprint(body, mediaType);
    Optional<IntentRecord> existing = c.store().get(id);
    if (existing.isPresent()) {
      IntentRecord r = existing.get();
      if (!Fingerprints.matches(r.fingerprint(), fingerprint, body, mediaType, Set.of())) {
        throw new PayloadMismatchException(id);
      }
      if (r.state().isTerminal() && r.lastResponse() != null) {
        return HttpParts.toResponse(request, r.lastResponse(), STORED_RESPONSE_HEADER);
      }
      record = r;
      attempts = r.attempts();
    } else {
      Instant now = now();
      Map<String, List<String>> headers = HttpParts.toMap(request.headers());
      headers.keySet().removeIf(n -> SecretHeaders.isSecret(n)
          || n.equalsIgnoreCase(c.dialect().keyHeader()));
      IntentRecord fresh = IntentRecord.builder()
          .id(id)
          .method(request.method())
          .url(request.url().toString())
          .headers(headers)
          .body(body, mediaType)
          .fingerprint(fingerprint)
          .state(IntentState.NEW)
          .createdAt(now)
          .updatedAt(now)
          .expiresAt(now.plus(c.keyRetention()))
          .build();
      c.store().create(fresh);
      record = fresh;
    }
    update(b -> b.state(IntentState.IN_FLIGHT).nextAttemptAt(null));
    return null;
  }

  private static String fingerprint(byte[] body, String mediaType) {
    if (Fingerprints.isJson(mediaType)) {
      try {
        return Fingerprints.ofJson(body, Set.of());
      } catch (IOException notJson) {
        return Fingerprints.ofBytes(body, mediaType);
      }
    }
    return Fingerprints.ofBytes(body, mediaType);
  }

  private Response loop(Request request) throws IOException {
    Request current = request;
    int thisCall = 0;
    while (true) {
      checkCanceled();
      thisCall++;
      int n = ++attempts;
      boolean poll = current != request;
      HttpUrl url = current.url();
      emit(new IntentEvent.AttemptStarted(id, n, current.method(), url.host(), poll));
      long start = System.nanoTime();
      Response response;
      StoredResponse seen;
      try {
        int ms = (int) Math.max(1, Math.min(c.policy().attemptTimeout().toMillis(),
            Duration.between(now(), deadline).toMillis()));
        response = chain.withConnectTimeout(ms, TimeUnit.MILLISECONDS)
            .withReadTimeout(ms, TimeUnit.MILLISECONDS)
            .withWriteTimeout(ms, TimeUnit.MILLISECONDS)
            .proceed(current);
        try {
          seen = HttpParts.read(response, c.maxResponseBytes());
        } catch (IOException cut) {
          response.close();
          throw cut;
        }
      } catch (IOException e) {
        emit(new IntentEvent.AttemptEnded(id, n, -1, e.getClass().getSimpleName(), since(start)));
        failures.add(e);
        if (chain.call().isCanceled()) {
          pending(PendingReason.INTERRUPTED, "the call was canceled", null);
          throw failures.attachTo(e);
        }
        Duration delay = waits.next(null, now());
        if (!mayRetry(thisCall, delay)) {
          pending(stopReason(thisCall, false), "attempt " + n + " got no answer ("
              + e.getClass().getSimpleName() + "); the server may have processed it", null);
          throw failures.attachTo(e);
        }
        chargeBudget(url.host(), null);
        waitBeforeRetry(n, delay, "no answer (" + e.getClass().getSimpleName() + ")");
        continue;
      }
      int status = seen.status();
      emit(new IntentEvent.AttemptEnded(id, n, status, null, since(start)));
      boolean replayed = c.dialect().isReplay(seen);
      Request next = current;
      boolean charge = false;
      String cause;
      Verdict verdict = poll && (status == 404 || status == 410) ? null : c.dialect().classify(seen);
      if (verdict == null) {
        next = request;
        cause = "status URL answered " + status + "; resending with the same key";
      } else {
        switch (verdict) {
          case COMPLETED:
            c.budget().recordSuccess(url.host());
            return finish(response, IntentState.COMPLETED, seen, replayed, null,
                new IntentEvent.Completed(id, status, replayed));
          case REJECTED:
            c.budget().recordSuccess(url.host());
            return finish(response, IntentState.REJECTED, seen, replayed, "rejected with " + status,
                new IntentEvent.Rejected(id, status));
          case PAYLOAD_MISMATCH:
            return finish(response, IntentState.KEY_CONFLICT, seen, replayed,
                "the server saw this key with another payload (" + status + ")",
                new IntentEvent.PayloadMismatch(id, status));
          case RECONCILE: {
            String reason = "server error " + status + " that retrying cannot resolve";
            return finish(response, IntentState.NEEDS_RECONCILIATION, seen, replayed, reason,
                new IntentEvent.NeedsReconciliation(id, reason));
          }
          case ACCEPTED: {
            c.budget().recordSuccess(url.host());
            String pollUrl = HttpParts.pollUrl(seen, response.request().url());
            emit(new IntentEvent.Accepted(id, pollUrl != null || poll));
            if (pollUrl != null) {
              next = pollRequest(request, pollUrl);
            }
            cause = "202 accepted; " + (next != request ? "polling the status URL"
                : "resending with the same key");
            break;
          }
          case IN_PROGRESS:
            emit(new IntentEvent.InProgress(id, status));
            cause = "a request with this key is in progress (" + status + ")";
            break;
          case RETRY:
          default:
            charge = true;
            cause = "transient answer " + status;
            break;
        }
      }
      Duration delay = waits.next(seen, now());
      if (!mayRetry(thisCall, delay)) {
        pending(stopReason(thisCall, verdict == Verdict.ACCEPTED),
            "attempt " + n + " was answered " + status, seen);
        return response;
      }
      if (charge) {
        chargeBudget(url.host(), response);
      }
      response.close();
      waitBeforeRetry(n, delay, cause);
      current = next;
    }
  }

  private Request pollRequest(Request original, String pollUrl) {
    Request.Builder poll = original.newBuilder().url(pollUrl).get();
    poll.removeHeader(c.dialect().keyHeader());
    poll.removeHeader("Content-Type");
    poll.removeHeader("Content-Length");
    return poll.build();
  }

  private PendingReason stopReason(int thisCall, boolean accepted) {
    if (accepted) {
      return PendingReason.STILL_PROCESSING;
    }
    return thisCall >= c.policy().maxAttempts()
        ? PendingReason.ATTEMPTS_EXHAUSTED : PendingReason.DEADLINE_EXCEEDED;
  }

  private boolean mayRetry(int thisCall, Duration delay) {
    return thisCall < c.policy().maxAttempts() && now().plus(delay).isBefore(deadline);
  }

  private void chargeBudget(String host, Response response)
      throws RetryBudgetExhaustedException {
    try {
      c.budget().acquireRetry(host);
    } catch (RetryBudgetExhaustedException e) {
      if (response != null) {
        response.close();
      }
      failures.attachTo(e);
      emit(new IntentEvent.BudgetExhausted(id, host));
      pending(PendingReason.RETRY_BUDGET_EXHAUSTED, "the retry budget for " + host + " is empty",
          null);
      throw e;
    }
  }

  private void waitBeforeRetry(int attempt, Duration delay, String cause) throws IOException {
    emit(new IntentEvent.RetryScheduled(id, attempt + 1, delay, cause));
    Duration left = delay;
    try {
      while (!left.isNegative() && !left.isZero()) {
        checkCanceled();
        Duration slice = left.compareTo(SLICE) > 0 ? SLICE : left;
        c.sleeper().sleep(slice);
        left = left.minus(slice);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      pending(PendingReason.INTERRUPTED, "interrupted while waiting to retry", null);
      throw new InterruptedIOException("interrupted while waiting to retry");
    }
    checkCanceled();
  }

  private void checkCanceled() throws IOException {
    if (chain.call().isCanceled()) {
      pending(PendingReason.INTERRUPTED, "the call was canceled", null);
      throw failures.attachTo(new IOException("Canceled"));
    }
  }

  private Response finish(Response response, IntentState state, StoredResponse seen,
      boolean replayed, String reason, IntentEvent event) {
    try {
      Instant now = now();
      update(b -> b.state(state).lastResponse(seen).replayed(replayed).reason(reason)
          .nextAttemptAt(null).expiresAt(now.plus(c.keyRetention())));
    } catch (RuntimeException e) {
      response.close();
      throw e;
    }
    emit(event);
    return response;
  }

  private void pending(PendingReason reason, String detail, StoredResponse last) {
    if (record != null && record.state() != IntentState.PENDING) {
      update(b -> b.state(IntentState.PENDING)
          .reason(Outcomes.pendingReasonText(reason, detail))
          .lastResponse(last != null ? last : record.lastResponse()));
    }
    emit(new IntentEvent.GaveUpUnknown(id, reason, detail));
  }

  private void update(Consumer<IntentRecord.Builder> change) {
    if (record == null) {
      return;
    }
    IntentRecord.Builder b = record.successor().updatedAt(now()).attempts(attempts);
    change.accept(b);
    IntentRecord next = b.build();
    // A lost compare-and-set means another call drives this key; the server's answer still stands.
    if (c.store().compareAndSet(record, next)) {
      record = next;
    } else {
      record = null;
    }
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
