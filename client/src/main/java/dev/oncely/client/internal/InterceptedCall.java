package dev.oncely.client.internal;

import dev.oncely.client.BodyTooLargeException;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentPendingException;
import dev.oncely.client.IntentState;
import dev.oncely.client.InvalidIntentException;
import dev.oncely.client.NeedsReconciliationException;
import dev.oncely.client.PayloadMismatchException;
import dev.oncely.client.PendingReason;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.Sleeper;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.IntentStore;
import dev.oncely.client.spi.SecretHeaders;
import dev.oncely.client.spi.StoreException;
import dev.oncely.client.spi.StoredResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.Buffer;

/**
 * One call through the {@code IdempotencyInterceptor}: a sequencer over the same stages as the
 * intent API's driver ({@link RecordKeeper}, {@link AnswerPolicy}, {@link Pacer}), with the app's
 * own request as the bridge: the key header is set once, the body buffered once, and a poll of a
 * status URL on another origin carries none of the app's headers. Only {@link IOException}s leave
 * {@link #run()}. Lives for one {@code intercept} invocation.
 */
public final class InterceptedCall {
  /** Response header added when the answer comes from the store instead of the network. */
  public static final String STORED_RESPONSE_HEADER = "Oncely-Stored-Response";
  private static final Duration SLICE = Duration.ofMillis(100);
  /** Key headers of the built-in dialects, recognised on a request whatever dialect is set. */
  private static final List<String> KNOWN_KEY_HEADERS = List.of(
      Dialects.ietf().keyHeader(), Dialects.paypal().keyHeader());

  /** The interceptor's settings. */
  public record Config(Dialect dialect, RetryPolicy policy, RetryBudget budget,
      IntentListener listener, Clock clock, Sleeper sleeper, Random random,
      IntentStore store, Set<String> methods, Function<Request, String> scope,
      Function<Request, String> operation, long maxBodyBytes, Duration keyRetention,
      long maxResponseBytes, Flights flights) {}

  /**
   * The identity an app attached to the request ({@code IntentTag}): scope, operation, optional
   * business id, and how to mint a key when neither the request nor the store has one. Null for an
   * untagged call, whose key lives only as long as the call.
   */
  public record Identity(String scope, String operation, String businessId,
      Supplier<String> mint) {}

  private final Config c;
  private final Interceptor.Chain chain;
  private final Identity identity;
  private IntentId id;
  private RecordKeeper keeper;
  private Exchange resumeAt;
  private final Failures failures = new Failures();

  /** Prepares the call for {@code chain}; {@code identity} may be null. */
  public InterceptedCall(Config config, Interceptor.Chain chain, Identity identity) {
    this.c = config;
    this.chain = chain;
    this.identity = identity;
  }

  /** Runs the call to its final response; throws only {@link IOException}s. */
  public Response run() throws IOException {
    try {
      return runChecked();
    } catch (PayloadMismatchException | InvalidIntentException | StoreException
        | NeedsReconciliationException | IntentPendingException e) {
      throw failures.attachTo(new IntentIOException(e));
    }
  }

  private Response runChecked() throws IOException {
    Request original = chain.request();
    ResumedIntent resumed = original.tag(ResumedIntent.class);
    IntentRecord resumedRecord = resumed == null ? null : c.store().get(resumed.id())
        .orElseThrow(() -> new StoreException("record " + resumed.id() + " is not in the store"));
    String appHeader = resumed != null ? null : appKeyHeader(original);
    String appKey = appHeader == null ? null : parseAppKey(original.header(appHeader));
    String flight = flightName(original, resumedRecord, appKey);
    try (Flights.Held held = c.flights().enter(flight, () -> chain.call().isCanceled())) {
      return runAlone(original, resumedRecord, appHeader, appKey);
    }
  }

  /**
   * The intent a call belongs to, for {@link Flights}: its business id if it has one (so a resume
   * and a re-issued call of one order wait for each other), else its key; null for a fresh key.
   */
  private String flightName(Request original, IntentRecord resumed, String appKey) {
    if (resumed != null) {
      return resumed.businessId() != null
          ? flightOfBusiness(resumed.id().scope(), resumed.id().operation(), resumed.businessId())
          : flightOfKey(resumed.id());
    }
    if (identity != null && identity.businessId() != null) {
      return flightOfBusiness(identity.scope(), identity.operation(), identity.businessId());
    }
    if (appKey != null) {
      return flightOfKey(intentIdOf(original, appKey));
    }
    return null;
  }

  private static String flightOfBusiness(String scope, String operation, String businessId) {
    return "business\u0000" + scope + '\u0000' + operation + '\u0000' + businessId;
  }

  private static String flightOfKey(IntentId id) {
    return "key\u0000" + id.scope() + '\u0000' + id.operation() + '\u0000' + id.key();
  }

  /** The intent's id; a key, scope or operation it cannot carry is an invalid intent. */
  private IntentId intentIdOf(Request original, String key) {
    try {
      return identity != null ? IntentId.of(identity.scope(), identity.operation(), key)
          : IntentId.of(c.scope().apply(original), c.operation().apply(original), key);
    } catch (NullPointerException e) {
      throw new InvalidIntentException("intent id", e.getMessage() + " is null");
    } catch (IllegalArgumentException e) {
      throw new InvalidIntentException("intent id", e.getMessage());
    }
  }

  private Response runAlone(Request original, IntentRecord resumedRecord, String appHeader,
      String appKey) throws IOException {
    Request.Builder builder = original.newBuilder();
    String keyHeader = c.dialect().keyHeader();
    String key;
    String keyValue;
    // A resumed record, or (looked up only when neither a resume nor the app names the key: one
    // store read per call) the record of a call re-issued after a restart for a business id that
    // already has an intent: the same intent, so the same key, sent exactly as first sent.
    IntentRecord known = resumedRecord != null ? resumedRecord
        : appHeader != null ? null : knownByBusinessId();
    if (known != null) {
      id = known.id();
      key = id.key();
      keyHeader = known.keyHeader() != null ? known.keyHeader() : keyHeader;
      keyValue = known.keyValue() != null ? known.keyValue() : c.dialect().formatKey(key);
      builder.header(keyHeader, keyValue);
    } else if (appHeader != null) {
      // The app set the key itself, maybe under another dialect's header (it changed the
      // interceptor's dialect, or talks to a server that reads that header): that is the intent's
      // key, sent exactly as the app wrote it and never beside a second, different key.
      keyHeader = appHeader;
      key = appKey;
      keyValue = original.header(keyHeader);
    } else {
      key = identity != null ? identity.mint().get() : Keys.random();
      keyValue = c.dialect().formatKey(key);
      builder.header(keyHeader, keyValue);
    }
    byte[] body = new byte[0];
    MediaType type = null;
    if (original.body() != null) {
      body = buffer(original.body());
      type = original.body().contentType();
      builder.method(original.method(), HttpParts.attemptOnly(body, type));
    }
    Request request = builder.build();
    if (id == null) {
      id = intentIdOf(original, key);
    }
    Response stored = openRecord(request, body, type, keyHeader, keyValue);
    if (stored != null) {
      return stored;
    }
    return loop(request);
  }

  /** The header under which the app set a key itself: the dialect's, or a known dialect's. */
  private String appKeyHeader(Request request) {
    if (request.header(c.dialect().keyHeader()) != null) {
      return c.dialect().keyHeader();
    }
    for (String name : KNOWN_KEY_HEADERS) {
      if (request.header(name) != null) {
        return name;
      }
    }
    return null;
  }

  /** The key in a header value the app wrote: a quoted Structured Field string or a plain token. */
  private String parseAppKey(String header) {
    String parsed = c.dialect().parseKey(header);
    String key = parsed != null ? parsed : header.trim();
    if (key.equals("\"\"")) {
      // An empty quoted string: every such call would share one intent.
      throw new InvalidIntentException("intent id", "key must not be blank");
    }
    if (key.length() >= 2 && key.startsWith("\"") && key.endsWith("\"")) {
      String unquoted = Dialects.ietf().parseKey(key);
      return unquoted != null ? unquoted : key;
    }
    return key;
  }

  private IntentRecord knownByBusinessId() {
    if (identity == null || identity.businessId() == null || c.store() == null) {
      return null;
    }
    return c.store().findByBusinessId(identity.scope(), identity.operation(),
        identity.businessId()).orElse(null);
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

  private Response openRecord(Request request, byte[] body, MediaType type, String keyHeader,
      String keyValue) {
    String mediaType = type == null ? null : type.toString();
    String fingerprint = fingerprint(body, mediaType);
    Optional<IntentRecord> existing = c.store() == null ? Optional.empty() : c.store().get(id);
    if (existing.isPresent()) {
      IntentRecord r = existing.get();
      if (!Fingerprints.matches(r.fingerprint(), fingerprint, body, mediaType, Set.of())) {
        throw new PayloadMismatchException(id);
      }
      if (r.state().isTerminal()) {
        if (r.lastResponse() == null) {
          // A finished intent is never sent again, even when its record cannot answer for it.
          throw new StoreException("record " + id + " is " + r.state()
              + " but holds no response to answer with; it is not sent again");
        }
        return HttpParts.toResponse(request, r.lastResponse(), STORED_RESPONSE_HEADER);
      }
      keeper = new RecordKeeper(c.store(), c.clock(), r, RecordKeeper.loadedMaybeDelivered(r),
          true);
      if (r.state() == IntentState.NEEDS_RECONCILIATION) {
        throw new NeedsReconciliationException(id, r.reason() == null ? "needs reconciliation"
            : r.reason());
      }
      if (keeper.maybeDelivered() && !withinRetention()) {
        String reason = "older than the server's key retention (" + c.keyRetention()
            + "): resending could create a second effect";
        keeper.reconcile(reason);
        emit(new IntentEvent.NeedsReconciliation(id, reason));
        throw new NeedsReconciliationException(id, reason);
      }
      keeper.claim(keyHeader, keyValue);
      if (r.pollUrl() != null) {
        resumeAt = Exchange.poll(okhttp3.HttpUrl.get(r.pollUrl()));
      }
      return null;
    }
    Instant now = now();
    Map<String, List<String>> headers = HttpParts.toMap(request.headers());
    headers.keySet().removeIf(n -> SecretHeaders.isSecret(n) || n.equalsIgnoreCase(keyHeader));
    IntentRecord fresh;
    try {
      fresh = IntentRecord.builder()
          .id(id)
          .businessId(identity != null ? identity.businessId() : null)
          .method(request.method())
          .url(request.url().toString())
          .headers(headers)
          .body(body, mediaType)
          .fingerprint(fingerprint)
          .keyWireForm(keyHeader, keyValue)
          // Created already claimed, before the first byte: one durable write, and a crash
          // during the first attempt leaves IN_FLIGHT, which reads as maybe delivered.
          .state(IntentState.IN_FLIGHT)
          .createdAt(now)
          .updatedAt(now)
          .expiresAt(now.plus(c.keyRetention()))
          .build();
    } catch (IllegalArgumentException e) {
      // A header name or URL the record cannot hold (Identifiers): refused before any I/O.
      throw new InvalidIntentException("request", e.getMessage());
    }
    if (c.store() != null) {
      c.store().create(fresh);
      emit(new IntentEvent.Recorded(id));
    }
    keeper = new RecordKeeper(c.store(), c.clock(), fresh, false, true);
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
    Pacer pacer = new Pacer(c.policy(), c.budget(),
        new Waits(c.policy(), c.random(), c.listener(), id), c.clock());
    AnswerPolicy policy = new AnswerPolicy(c.dialect(), id, request.url());
    Exchange exchange = resumeAt != null ? resumeAt : Exchange.submit(request.url());
    while (true) {
      checkCanceled();
      boolean deliveredBefore = keeper.maybeDelivered();
      Request current = requestFor(request, exchange);
      int n = keeper.attemptStarting();
      pacer.attempted();
      emit(new IntentEvent.AttemptStarted(id, n, current.method(), current.url().host(),
          exchange.isPoll()));
      long start = System.nanoTime();
      Response response = null;
      Answer answer;
      try {
        int ms = (int) pacer.attemptTimeoutMillis();
        response = chain.withConnectTimeout(ms, TimeUnit.MILLISECONDS)
            .withReadTimeout(ms, TimeUnit.MILLISECONDS)
            .withWriteTimeout(ms, TimeUnit.MILLISECONDS)
            .proceed(current);
        StoredResponse seen = HttpParts.read(response, c.maxResponseBytes());
        answer = Answer.of(response, seen, current.url());
        emit(new IntentEvent.AttemptEnded(id, n, seen.status(), null, since(start)));
      } catch (IOException e) {
        if (response != null) {
          response.close();
          response = null;
        }
        emit(new IntentEvent.AttemptEnded(id, n, -1, e.getClass().getSimpleName(), since(start)));
        failures.add(e);
        if (chain.call().isCanceled()) {
          park(PendingReason.INTERRUPTED, "the call was canceled", null);
          throw failures.attachTo(e);
        }
        answer = Answer.failed(current.url(), e);
      }
      if (!answer.provablyUnsent()) {
        keeper.attemptMayHaveReached();
      }
      Step step = policy.decide(exchange, deliveredBefore, answer, withinRetention());
      if (answer.response() != null && answer.response().status() < 500
          && answer.response().status() != 429) {
        c.budget().recordSuccess(answer.url().host());
      }
      if (step instanceof Step.Finish finish) {
        Response finished = finish(response, finish);
        if (finish.state() == IntentState.NEEDS_RECONCILIATION && misleading(answer)) {
          finished.close();
          throw new NeedsReconciliationException(id, finish.reason());
        }
        return finished;
      }
      if (step instanceof Step.Park stop) {
        park(stop.reason(), stop.detail(), answer.response());
        if (response != null && misleading(answer)) {
          response.close();
          throw new IntentPendingException(id, stop.reason(), stop.detail());
        }
        return respondOrThrow(response, answer);
      }
      Step.Again again = (Step.Again) step;
      if (again.event() != null) {
        emit(again.event());
      }
      boolean replayed = answer.response() != null && c.dialect().isReplay(answer.response());
      if (again.next().isPoll()) {
        keeper.pollNext(again.next().url().toString(), answer.response(), replayed);
      } else if (exchange.isPoll()) {
        keeper.pollNext(null, answer.response(), replayed);
      }
      Pacer.Pace pace = pacer.next(answer.response(), again.chargeBudget(), again.processing(),
          answer.url().host());
      if (!pace.goesOn()) {
        String detail = answer.failure() != null
            ? "attempt " + n + " got no answer (" + answer.failure().getClass().getSimpleName()
                + "); the server may have processed it"
            : "attempt " + n + " was answered " + answer.response().status();
        if (pace.refusal() != null) {
          if (response != null) {
            response.close();
          }
          emit(new IntentEvent.BudgetExhausted(id, answer.url().host()));
          park(PendingReason.RETRY_BUDGET_EXHAUSTED, "the retry budget for "
              + answer.url().host() + " is empty", answer.response());
          throw failures.attachTo(pace.refusal());
        }
        park(pace.stop(), detail, answer.response());
        if (response != null && misleading(answer)) {
          response.close();
          throw new IntentPendingException(id, pace.stop(), detail);
        }
        return respondOrThrow(response, answer);
      }
      if (response != null) {
        response.close();
      }
      String cause = Pacer.serverChose(answer.response())
          ? again.cause() + ", Retry-After" : again.cause();
      waitBeforeRetry(n, pace.delay(), cause);
      exchange = again.next();
    }
  }

  /**
   * The request for {@code exchange}: the app's request (key header set once, body buffered) for
   * a submit, moved to a redirect target within the origin if need be; a bare GET for a poll,
   * carrying the app's headers only on the intent's own origin.
   */
  private Request requestFor(Request request, Exchange exchange) {
    if (!exchange.isPoll()) {
      return exchange.url().equals(request.url()) ? request
          : request.newBuilder().url(exchange.url()).build();
    }
    Request.Builder poll;
    if (Origins.same(request.url(), exchange.url())) {
      poll = request.newBuilder().url(exchange.url()).get();
      poll.removeHeader(c.dialect().keyHeader());
      poll.removeHeader("Content-Type");
      poll.removeHeader("Content-Length");
    } else {
      poll = new Request.Builder().url(exchange.url()).get();
    }
    return poll.build();
  }

  /**
   * Whether handing {@code answer} to the app would read as a final refusal or redirect although
   * the decision core did not accept it as one (a 3xx or 4xx): then the app gets a typed
   * exception instead.
   */
  private static boolean misleading(Answer answer) {
    return answer.response() != null && (answer.followedRedirects()
        || answer.response().status() >= 300 && answer.response().status() < 500);
  }

  private Response respondOrThrow(Response response, Answer answer) throws IOException {
    if (response != null) {
      return response;
    }
    throw failures.attachTo(answer.failure());
  }

  private boolean withinRetention() {
    IntentRecord record = keeper.record();
    return now().isBefore(record.expiresAt())
        && now().isBefore(record.createdAt().plus(c.keyRetention()));
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
      park(PendingReason.INTERRUPTED, "interrupted while waiting to retry", null);
      throw new InterruptedIOException("interrupted while waiting to retry");
    }
    checkCanceled();
  }

  private void checkCanceled() throws IOException {
    if (chain.call().isCanceled()) {
      park(PendingReason.INTERRUPTED, "the call was canceled", null);
      throw failures.attachTo(new IOException("Canceled"));
    }
  }

  private Response finish(Response response, Step.Finish finish) {
    IntentState state = finish.state();
    Duration retention = state.isTerminal()
        ? max(IdempotentClient.DEFAULT_FINISHED_RETENTION, c.keyRetention()) : c.keyRetention();
    try {
      keeper.settle(state, finish.response(), finish.replayed(), finish.reason(), retention);
    } catch (RuntimeException e) {
      response.close();
      throw e;
    }
    emit(finish.event());
    return response;
  }

  private void park(PendingReason reason, String detail, StoredResponse last) {
    if (keeper.record().state() != IntentState.PENDING) {
      keeper.park(reason, detail, null, last != null ? last : keeper.record().lastResponse());
    }
    emit(new IntentEvent.GaveUpUnknown(id, reason, detail));
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
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
