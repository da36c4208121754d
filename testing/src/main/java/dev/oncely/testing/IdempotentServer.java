package dev.oncely.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import okhttp3.HttpUrl;

/**
 * The server side of the idempotency contract as a MockWebServer {@link Dispatcher}, configurable
 * in the ways real servers differ, with named {@link Fault}s, an {@link EffectLedger} of the
 * business effects it committed and a {@link RequestLog} of everything it received.
 *
 * <h2>What it does</h2>
 *
 * <ul>
 *   <li>{@code POST}, {@code PUT}, {@code PATCH} or {@code DELETE} on any path except the status
 *       paths: with a key in the {@linkplain Builder#keyHeader key header}, the record of (scope,
 *       key) is reserved atomically before the effect; the first request commits one effect in the
 *       ledger and stores its answer ({@code 201 {"id":"eff_000001","intent":..,"status":"succeeded"}},
 *       or {@code 202} + {@code Location} + {@code Retry-After} when {@linkplain
 *       Builder#asynchronous(boolean) asynchronous}, or when {@linkplain Builder#asynchronousWhen
 *       the app's choice} says so for this request; the body is the {@linkplain
 *       Builder#resultBody app's representation} of the effect); a repeat with the same
 *       fingerprint gets the stored answer byte for byte plus {@code Idempotent-Replayed: true};
 *       a repeat while the first is still in progress gets the {@linkplain
 *       Builder#inProgressStatus in-progress status} (so does a repeat while an accepted
 *       operation is processing, {@linkplain Builder#inProgressWhileAccepted if configured});
 *       the key with another fingerprint gets the
 *       {@linkplain Builder#mismatch mismatch answer}. A
 *       malformed key gets {@code 400}; a missing key {@code 400} unless {@linkplain
 *       Builder#acceptKeyless(boolean) keyless requests are accepted} (then every one is a new
 *       effect). A {@linkplain Builder#businessRule business rule} can refuse a request: {@code
 *       400}, stored and replayed, no effect. Before anything else, a request without an
 *       {@linkplain Builder#requireCredential accepted credential} gets {@code 401}, then a body
 *       over {@linkplain Builder#maxBodyBytes the limit} {@code 413}.
 *   <li>{@code GET /status/{id}} (the prefix is {@linkplain Builder#statusPath configurable}):
 *       the operation's status URL. While an accepted operation is processing it answers by the
 *       {@link PollStyle}; it completes after {@linkplain Builder#completeAfterPolls(int) a
 *       number of polls} or {@linkplain Builder#completeAfter(Duration) a time} (or {@link
 *       #completeAccepted()}) and then answers {@code 200} with the result. Unknown: {@code
 *       404}.
 *   <li>{@code GET} on any other path: {@code 200 {"data":[]}}, a collection listing without
 *       effect (what a {@code POST} turned into a {@code GET} by a followed 301/302 finds).
 *       Other methods: {@code 405}.
 * </ul>
 *
 * <p>Faults come from the {@link FaultScript}; server inconsistencies ({@link Fault#lostRecord()},
 * {@link Fault#lostFingerprint()}) and {@linkplain Builder#retention retention expiry} make it
 * forget; an effect committed for a key it had forgotten is marked {@link
 * EffectLedger.Effect#afterServerForgot()}.
 *
 * <h2>Use</h2>
 *
 * <pre>{@code
 * IdempotentServer kit = IdempotentServer.builder()
 *     .mismatch(MismatchAnswer.stripe())
 *     .faults(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build())
 *     .build();
 * MockWebServer server = new MockWebServer();
 * server.setDispatcher(kit);
 * server.start();
 * // ... run the code under test against server.url("/payments") ...
 * kit.ledger().assertAtMostOneEffectPerIntent();
 * }</pre>
 *
 * One kit may be mounted on two MockWebServers (e.g. the API and a status host on another origin,
 * see {@link Builder#statusOrigin(HttpUrl)}); the {@link RequestLog} tells them apart by origin.
 *
 * <p>Thread-safe. Defaults: key header {@value #DEFAULT_KEY_HEADER}, {@link KeyQuoting#EITHER},
 * keys up to {@value #DEFAULT_MAX_KEY_LENGTH} characters, {@link MismatchAnswer#ietf()}, in
 * progress {@code 409}, {@code Retry-After: 1}, {@link ServerErrors#RE_EXECUTED}, synchronous,
 * {@link PollStyle#ACCEPTED}, one processing poll, {@code Location} kept on replays, records kept
 * forever, {@link FingerprintRule#EXACT_BYTES} without the query string, no faults, intents
 * identified by their key, late originals held up to 2 s, the system UTC clock, status URLs under
 * {@value #STATUS_PATH} with ids {@code op_000001}..., no {@code Location} on {@code 201}, no body
 * limit, no credential required.
 */
public final class IdempotentServer extends Dispatcher {
  /** Default key header name. */
  public static final String DEFAULT_KEY_HEADER = "Idempotency-Key";
  /** Default longest accepted key. */
  public static final int DEFAULT_MAX_KEY_LENGTH = 255;
  /** Header that marks a replayed answer. */
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";
  /** Default path prefix of the status URLs of operations. */
  public static final String STATUS_PATH = "/status/";
  /** Default prefix of operation ids. */
  public static final String DEFAULT_ID_PREFIX = "op_";
  /** Default in-progress answer body ({@code application/json}). */
  public static final String DEFAULT_IN_PROGRESS_BODY =
      "{\"error\":\"a request with this key is in progress\"}";
  /** Default longest time a {@link Fault#lateOriginal()} request is held. */
  public static final Duration DEFAULT_LATE_FOR = Duration.ofSeconds(2);

  private static final Set<String> SUBMIT_METHODS = Set.of("POST", "PUT", "PATCH", "DELETE");

  private final Builder config;
  private final EffectLedger ledger = new EffectLedger();
  private final RequestLog log = new RequestLog();
  private final List<InjectedFault> injected = new ArrayList<>();
  private final List<ServedAnswer> answers = new ArrayList<>();
  private final AtomicInteger requestNumbers = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  /** Guards {@link #lastActivity}; notified at each arrival and answer. */
  private final Object activity = new Object();
  private long lastActivity = System.nanoTime();
  private final Condition closing = lock.newCondition();
  private final Map<String, Integer> requestsOfKey = new HashMap<>();
  private final Map<String, KeyRecord> records = new HashMap<>();
  private final Set<String> forgotten = new HashSet<>();
  private final Map<String, Operation> operations = new HashMap<>();
  private volatile FaultScript faults;
  private boolean closed;

  /** A fault the server injected, with the number of the request it hit. */
  public record InjectedFault(int requestNumber, Fault fault) {}

  private IdempotentServer(Builder b) {
    this.config = b.copy();
    this.faults = b.faults;
  }

  /** A builder holding the defaults listed in the class documentation. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * An {@link Builder#intentOf intent extractor} that reads the top-level JSON string field
   * {@code field} of the body (e.g. an order id), falling back to the key when the body lacks it.
   *
   * @throws NullPointerException if {@code field} is null
   */
  public static Function<ReceivedRequest, String> jsonField(String field) {
    Pattern p = Pattern.compile("\"" + Pattern.quote(Objects.requireNonNull(field, "field"))
        + "\"\\s*:\\s*\"([^\"]*)\"");
    return r -> {
      Matcher m = p.matcher(r.bodyText());
      return m.find() ? m.group(1) : null;
    };
  }

  /** The business effects committed so far. */
  public EffectLedger ledger() {
    return ledger;
  }

  /** Every request received so far. */
  public RequestLog requests() {
    return log;
  }

  /** What the server decided to answer each request so far, in request order. */
  public List<ServedAnswer> answers() {
    synchronized (answers) {
      return List.copyOf(answers);
    }
  }

  /** How many answers of {@code kind} were given for {@code intent}. */
  public int answersOf(String intent, ServedAnswer.Kind kind) {
    return (int) answers().stream()
        .filter(a -> a.kind() == kind && Objects.equals(a.intent(), intent)).count();
  }

  /**
   * The body of the answer stored for {@code key} in {@code scope} (the empty string when the
   * server has no {@linkplain Builder#scopeHeader scope header}), as UTF-8 text; empty while the
   * key is unknown or in progress.
   */
  public Optional<String> storedBody(String scope, String key) {
    lock.lock();
    try {
      KeyRecord rec = records.get(scope + '\u0000' + key);
      return rec == null || rec.stored == null ? Optional.empty()
          : Optional.of(new String(rec.stored.body(), java.nio.charset.StandardCharsets.UTF_8));
    } finally {
      lock.unlock();
    }
  }

  /** The faults injected so far, in request order. */
  public List<InjectedFault> injectedFaults() {
    synchronized (injected) {
      return List.copyOf(injected);
    }
  }

  /**
   * Applies {@code script} to the requests that arrive from now on (request numbers keep
   * counting). Lets a test break and heal the network.
   *
   * @throws NullPointerException if {@code script} is null
   */
  public void changeFaults(FaultScript script) {
    this.faults = Objects.requireNonNull(script, "script");
  }

  /**
   * Forgets every key record, as a server whose idempotency store was wiped; effects and the
   * status of operations stay. Effects committed later for a forgotten key are marked {@link
   * EffectLedger.Effect#afterServerForgot()}.
   */
  public void forgetAllKeys() {
    lock.lock();
    try {
      forgotten.addAll(records.keySet());
      records.clear();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Completes every accepted operation now, as if its processing finished.
   *
   * @return how many operations this call completed
   */
  public int completeAccepted() {
    lock.lock();
    try {
      int n = 0;
      for (Operation op : operations.values()) {
        if (!op.done) {
          complete(op);
          n++;
        }
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  /** The number of requests received so far. */
  public int requestCount() {
    return requestNumbers.get();
  }

  /**
   * Waits until every request received so far has been answered and, for {@code quietFor}, no
   * request arrived and none was answered; at most {@code timeout}. Tests call it before moving a
   * simulated clock far ahead, so a request a client gave up on is not handled "after" the jump.
   * Woken by each arrival and answer, so it never polls.
   *
   * @return whether the server went quiet within {@code timeout}
   * @throws InterruptedException if the waiting thread is interrupted
   */
  public boolean awaitQuiet(Duration quietFor, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (activity) {
      while (true) {
        long now = System.nanoTime();
        boolean answered = answers().size() >= requestCount();
        long quietLeft = lastActivity + quietFor.toNanos() - now;
        if (answered && quietLeft <= 0) {
          return true;
        }
        long left = deadline - now;
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(activity, answered ? Math.min(quietLeft, left) : left);
      }
    }
  }

  /** Notes an arrival or an answer for {@link #awaitQuiet}. */
  private void active() {
    synchronized (activity) {
      lastActivity = System.nanoTime();
      activity.notifyAll();
    }
  }

  @Override
  public MockResponse dispatch(RecordedRequest recorded) throws InterruptedException {
    int number = requestNumbers.incrementAndGet();
    active();
    ReceivedRequest request = ReceivedRequest.of(number, recorded, config.clock.instant());
    log.add(request);
    String rawKey = request.header(config.keyHeader);
    boolean poll = isPoll(request);
    int ofKey = 0;
    if (rawKey != null && !poll) {
      lock.lock();
      try {
        ofKey = requestsOfKey.merge(scope(request) + '\u0000' + rawKey, 1, Integer::sum);
      } finally {
        lock.unlock();
      }
    }
    FaultScript script = faults;
    Fault fault = script.faultFor(request, ofKey);
    if (fault != null) {
      synchronized (injected) {
        injected.add(new InjectedFault(number, fault));
      }
    }
    MockResponse.Builder early = beforeHandling(request, fault, ofKey, poll);
    if (early != null) {
      served(new ServedAnswer(number, null, early.getCode(), ServedAnswer.Kind.FAULT));
      return early.build();
    }
    Answer answer;
    String intent = null;
    if (poll) {
      answer = request.method().equals("GET") ? poll(request, fault)
          : Answer.json(405, "{\"error\":\"status URLs answer GET only\"}").with("Allow", "GET");
    } else if (SUBMIT_METHODS.contains(request.method()) && !credentialAccepted(request)) {
      answer = Answer.json(401, "{\"error\":\"the credential is missing or expired\"}")
          .with("WWW-Authenticate", "Bearer error=\"invalid_token\"")
          .as(ServedAnswer.Kind.UNAUTHORIZED);
    } else if (SUBMIT_METHODS.contains(request.method())
        && request.body().length > config.maxBodyBytes) {
      answer = Answer.json(413, "{\"error\":\"the body is " + request.body().length
          + " bytes; the limit is " + config.maxBodyBytes + "\"}");
    } else if (SUBMIT_METHODS.contains(request.method())) {
      String key = keyOrNull(request);
      intent = key == null && !config.acceptKeyless ? null : intentOf(request, key);
      answer = submit(request, intent, fault);
    } else if (request.method().equals("GET") || request.method().equals("HEAD")) {
      answer = Answer.json(200, "{\"data\":[]}");
    } else {
      answer = Answer.json(405, "{\"error\":\"method not allowed\"}")
          .with("Allow", "GET, POST, PUT, PATCH, DELETE");
    }
    served(new ServedAnswer(number, intent, answer.status(), answer.kind()));
    if (fault != null && fault.kind() == Fault.Kind.STALL_AFTER_COMMIT
        && script.stallFor().isPresent()) {
      holdStalled(script.stallFor().get());
      return Fault.dropAfterCommit().applyTo(new MockResponse.Builder()).build();
    }
    return afterCommit(answer, fault, request).build();
  }

  private void served(ServedAnswer a) {
    synchronized (answers) {
      answers.add(a);
    }
    active();
  }

  /** Holds a stalled request's thread (and so its connection) for stallFor, or until close. */
  private void holdStalled(Duration stallFor) throws InterruptedException {
    long deadline = System.nanoTime() + stallFor.toNanos();
    lock.lock();
    try {
      while (!closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        closing.await(left, TimeUnit.NANOSECONDS);
      }
    } finally {
      lock.unlock();
    }
  }

  private boolean credentialAccepted(ReceivedRequest r) {
    return config.credentialHeader == null
        || config.credentialAccepted.test(r.header(config.credentialHeader));
  }

  private String keyOrNull(ReceivedRequest r) {
    try {
      return Keys.read(config.keyHeader, r.headerValues(config.keyHeader), config.keyQuoting,
          config.maxKeyLength);
    } catch (Keys.MalformedKeyException e) {
      return null;
    }
  }

  private boolean isPoll(ReceivedRequest r) {
    return r.url().encodedPath().startsWith(config.statusPath);
  }

  private String scope(ReceivedRequest r) {
    if (config.scopeHeader == null) {
      return "";
    }
    String s = r.header(config.scopeHeader);
    return s == null ? "" : s.trim();
  }

  private MockResponse.Builder beforeHandling(ReceivedRequest r, Fault fault, int ofKey,
      boolean poll) {
    if (fault == null) {
      return null;
    }
    switch (fault.kind()) {
      case REFUSE:
        return fault.applyTo(new MockResponse.Builder());
      case ANSWER_BEFORE_HANDLING: {
        Answer a = Answer.of(fault.status(), "text/plain",
            "answered by the fault " + fault + ", not by the server");
        if ((fault.status() == 429 || fault.status() == 503) && config.retryAfterSeconds >= 0) {
          a = a.with("Retry-After", Integer.toString(config.retryAfterSeconds));
        }
        return a.toResponse();
      }
      case REDIRECT:
        return Answer.of(fault.status(), "text/plain", "moved").with("Location", fault.location())
            .toResponse();
      case AUTH_ON_RETRY: {
        if (ofKey < 2 && !poll) {
          return null;
        }
        Answer a = Answer.json(fault.status(), "{\"error\":\"not authorized\"}");
        if (fault.status() == 401) {
          a = a.with("WWW-Authenticate", "Bearer error=\"invalid_token\"");
        } else if (fault.status() == 407) {
          a = a.with("Proxy-Authenticate", "Basic realm=\"proxy\"");
        }
        return a.toResponse();
      }
      default:
        return null;
    }
  }

  private Answer submit(ReceivedRequest r, String intent, Fault fault)
      throws InterruptedException {
    String key;
    try {
      key = Keys.read(config.keyHeader, r.headerValues(config.keyHeader), config.keyQuoting,
          config.maxKeyLength);
    } catch (Keys.MalformedKeyException e) {
      return Answer.json(400, "{\"error\":" + quote(e.getMessage()) + "}")
          .as(ServedAnswer.Kind.INVALID_KEY);
    }
    if (key == null) {
      if (!config.acceptKeyless) {
        return Answer.json(400, "{\"error\":" + quote(config.keyHeader + " is required") + "}")
            .as(ServedAnswer.Kind.INVALID_KEY);
      }
      lock.lock();
      Executed done;
      try {
        done = execute(r, intent, null, null, null, false, fault);
      } finally {
        lock.unlock();
      }
      return announce(done, null);
    }
    String id = scope(r) + '\u0000' + key;
    String fingerprint = Fingerprints.of(r, config.fingerprint, config.fingerprintQuery);
    KeyRecord rec;
    Executed done = null;
    lock.lock();
    try {
      expire(id);
      if (fault != null && fault.kind() == Fault.Kind.LOST_RECORD && records.remove(id) != null) {
        forgotten.add(id);
      }
      KeyRecord existing = records.get(id);
      if (fault != null && fault.kind() == Fault.Kind.LOST_FINGERPRINT && existing != null) {
        existing.fingerprint = "garbled:" + existing.fingerprint;
      }
      if (existing != null) {
        return repeat(existing, fingerprint);
      }
      rec = new KeyRecord(fingerprint, config.clock.instant());
      records.put(id, rec);
      if (fault == null || fault.kind() != Fault.Kind.LATE_ORIGINAL) {
        done = execute(r, intent, key, id, rec, forgotten.contains(id), fault);
      }
    } finally {
      lock.unlock();
    }
    return done != null ? announce(done, rec) : late(r, intent, key, id, rec);
  }

  /**
   * Tells the effect listener (outside the lock, the record still in progress), then stores the
   * answer of a committed effect.
   */
  private Answer announce(Executed done, KeyRecord rec) {
    if (done.effect() == null) {
      return done.answer();
    }
    if (config.onEffect != null) {
      config.onEffect.accept(done.effect());
    }
    lock.lock();
    try {
      store(rec, done.stored());
      return done.answer();
    } finally {
      lock.unlock();
    }
  }

  /** The decision for a new request: its answer, the effect (or null), what to store. */
  private record Executed(Answer answer, EffectLedger.Effect effect, Answer stored) {
    static Executed without(Answer answer) {
      return new Executed(answer, null, null);
    }
  }

  /** Holds a late original until a retry was told "in progress" (or lateFor passed). */
  private Answer late(ReceivedRequest r, String intent, String key, String id, KeyRecord rec)
      throws InterruptedException {
    long deadline = System.nanoTime() + config.lateFor.toNanos();
    Executed done;
    lock.lock();
    try {
      while (rec.inProgressAnswers == 0 && !closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        changed.await(left, TimeUnit.NANOSECONDS);
      }
      if (records.get(id) != rec) {
        return Answer.json(500, "{\"error\":\"the record was lost while processing\"}")
            .as(ServedAnswer.Kind.HANDLER_ERROR);
      }
      done = execute(r, intent, key, id, rec, forgotten.contains(id), null);
    } finally {
      lock.unlock();
    }
    return announce(done, rec);
  }

  private String intentOf(ReceivedRequest r, String key) {
    String intent = config.intentOf == null ? null : config.intentOf.apply(r);
    if (intent == null) {
      intent = key != null ? key : "keyless#" + r.number();
    }
    return intent;
  }

  private void expire(String id) {
    KeyRecord rec = records.get(id);
    if (rec != null && config.retention != null
        && !config.clock.instant().isBefore(rec.createdAt.plus(config.retention))) {
      records.remove(id);
      forgotten.add(id);
    }
  }

  private Answer repeat(KeyRecord rec, String fingerprint) {
    if (!rec.fingerprint.equals(fingerprint)) {
      MismatchAnswer m = config.mismatch;
      return new Answer(m.statusCode(), okhttp3.Headers.of("Content-Type", m.contentType()),
          m.body(), ServedAnswer.Kind.MISMATCH);
    }
    if (rec.stored == null || rec.busyRepeats > 0) {
      if (rec.stored != null) {
        rec.busyRepeats--;
      }
      return inProgress(rec);
    }
    Answer replay = rec.stored;
    if (rec.operation != null) {
      completeIfDue(rec.operation);
    }
    if (replay.status() == 202 && rec.operation != null && !rec.operation.done
        && config.inProgressWhileAccepted) {
      return inProgress(rec);
    }
    if (replay.status() == 202 && rec.operation != null && rec.operation.done
        && !config.replayAcceptedForever) {
      replay = rec.operation.result;
    } else if (replay.status() == 202 && !config.locationOnReplay) {
      replay = replay.without("Location");
    }
    return replay.with(REPLAYED_HEADER, "true").as(ServedAnswer.Kind.REPLAY);
  }

  /** The in-progress answer to a repeat of {@code rec}'s key, counted. */
  private Answer inProgress(KeyRecord rec) {
    rec.inProgressAnswers++;
    changed.signalAll();
    Answer a = Answer.of(config.inProgressStatus, config.inProgressContentType,
        config.inProgressBody).as(ServedAnswer.Kind.IN_PROGRESS);
    return config.retryAfterSeconds >= 0
        ? a.with("Retry-After", Integer.toString(config.retryAfterSeconds)) : a;
  }

  /**
   * Runs a new request under the lock: refuse it, fail it, or commit the effect. A refusal or
   * failure is stored here; a committed effect's answer is stored by {@link #announce}.
   */
  private Executed execute(ReceivedRequest r, String intent, String key, String id,
      KeyRecord rec, boolean afterForgot, Fault fault) {
    String problem = config.businessRule == null ? null : config.businessRule.apply(r);
    if (problem != null) {
      return Executed.without(store(rec, Answer.json(400, "{\"error\":" + quote(problem) + "}")
          .as(ServedAnswer.Kind.REFUSED)));
    }
    if (fault != null && fault.kind() == Fault.Kind.HANDLER_ERROR) {
      Answer error = Answer.json(fault.status(), "{\"error\":\"the handler failed\"}")
          .as(ServedAnswer.Kind.HANDLER_ERROR);
      if (config.serverErrors == ServerErrors.REPLAYED || rec == null) {
        return Executed.without(store(rec, error));
      }
      records.remove(id);
      return Executed.without(error);
    }
    EffectLedger.Effect effect = ledger.add(intent, key, r.number(), afterForgot);
    Operation op = new Operation(config.idPrefix + String.format("%06d", effect.sequence()),
        effect, r, config.clock.instant());
    operations.put(op.id, op);
    if (rec != null) {
      rec.operation = op;
    }
    changed.signalAll();
    if (fault != null && fault.kind() == Fault.Kind.PROCESSING_SLOWLY) {
      complete(op);
      if (rec != null) {
        rec.busyRepeats = fault.status();
      }
      Answer result = op.result.withStatus(201).as(ServedAnswer.Kind.EFFECT);
      return new Executed(processing(202, op).as(ServedAnswer.Kind.EFFECT), effect, result);
    }
    if (!config.asynchronous.test(r)) {
      complete(op);
      Answer result = op.result.withStatus(201).as(ServedAnswer.Kind.EFFECT);
      if (config.locationOnCreated) {
        result = result.with("Location", statusUrl(r, op));
      }
      return new Executed(result, effect, result);
    }
    op.pollsLeft = config.completeAfter == null ? config.completeAfterPolls : Integer.MAX_VALUE;
    Answer accepted = processing(202, op).with("Location", statusUrl(r, op))
        .as(ServedAnswer.Kind.EFFECT);
    return new Executed(accepted, effect, accepted);
  }

  private Answer store(KeyRecord rec, Answer answer) {
    if (rec != null) {
      rec.stored = answer;
      changed.signalAll();
    }
    return answer;
  }

  private Answer processing(int status, Operation op) {
    Answer a = Answer.json(status, "{\"id\":\"" + op.id + "\",\"status\":\"processing\"}");
    return config.retryAfterSeconds >= 0
        ? a.with("Retry-After", Integer.toString(config.retryAfterSeconds)) : a;
  }

  private String statusUrl(ReceivedRequest r, Operation op) {
    if (config.statusOrigin == null) {
      return config.statusPath + op.id;
    }
    return config.statusOrigin.resolve(config.statusPath + op.id).toString();
  }

  private void complete(Operation op) {
    op.done = true;
    String body = config.resultBody == null
        ? "{\"id\":\"" + op.id + "\",\"intent\":" + quote(op.effect.intent())
            + ",\"status\":\"succeeded\"}"
        : Objects.requireNonNull(config.resultBody.apply(
            new Committed(op.id, op.effect, op.request)), "resultBody returned null");
    op.result = Answer.json(200, body);
    op.request = null;
  }

  /** Completes {@code op} if it was accepted at least {@code completeAfter} ago. */
  private void completeIfDue(Operation op) {
    if (!op.done && config.completeAfter != null
        && !config.clock.instant().isBefore(op.acceptedAt.plus(config.completeAfter))) {
      complete(op);
      changed.signalAll();
    }
  }

  /**
   * How many accepted operations are still processing now (after completing those whose
   * {@linkplain Builder#completeAfter(Duration) time} has come).
   */
  public int acceptedPending() {
    lock.lock();
    try {
      int n = 0;
      for (Operation op : operations.values()) {
        completeIfDue(op);
        if (!op.done) {
          n++;
        }
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  private Answer poll(ReceivedRequest r, Fault fault) {
    String id = r.url().encodedPath().substring(config.statusPath.length());
    lock.lock();
    try {
      if (fault != null && fault.kind() == Fault.Kind.LOST_RECORD) {
        operations.remove(id);
      }
      Operation op = operations.get(id);
      if (op == null) {
        return Answer.json(404, "{\"error\":\"no operation " + quote(id) + "\"}")
            .as(ServedAnswer.Kind.POLL);
      }
      completeIfDue(op);
      if (!op.done) {
        if (op.pollsLeft > 0) {
          op.pollsLeft--;
          return processing(config.pollStyle == PollStyle.ACCEPTED ? 202 : 200, op)
              .as(ServedAnswer.Kind.POLL);
        }
        complete(op);
        changed.signalAll();
      }
      return op.result.as(ServedAnswer.Kind.POLL);
    } finally {
      lock.unlock();
    }
  }

  private MockResponse.Builder afterCommit(Answer answer, Fault fault, ReceivedRequest r) {
    if (fault == null) {
      return answer.toResponse();
    }
    switch (fault.kind()) {
      case DROP_AFTER_COMMIT:
      case STALL_AFTER_COMMIT:
      case TRUNCATE_BODY:
      case INFORMATIONAL:
        return fault.applyTo(answer.toResponse());
      case GATEWAY_AFTER_COMMIT:
        return Answer.of(fault.status(), "text/html",
            "<html><body>error code: " + fault.status() + "</body></html>").toResponse();
      case SEE_OTHER_AFTER_COMMIT: {
        Operation op = operationOf(r);
        return op == null ? answer.toResponse()
            : Answer.of(303, "text/plain", "see other").with("Location", statusUrl(r, op))
                .toResponse();
      }
      default:
        return answer.toResponse();
    }
  }

  /** The operation of the key {@code r} carries, or null. */
  private Operation operationOf(ReceivedRequest r) {
    String key;
    try {
      key = Keys.read(config.keyHeader, r.headerValues(config.keyHeader), config.keyQuoting,
          config.maxKeyLength);
    } catch (Keys.MalformedKeyException e) {
      return null;
    }
    lock.lock();
    try {
      KeyRecord rec = key == null ? null : records.get(scope(r) + '\u0000' + key);
      return rec == null ? null : rec.operation;
    } finally {
      lock.unlock();
    }
  }

  /** Releases every held late original and stalled request. */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      changed.signalAll();
      closing.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  @Override
  public String toString() {
    Map<String, Integer> faultCounts = new TreeMap<>();
    for (InjectedFault f : injectedFaults()) {
      faultCounts.merge(f.fault().toString(), 1, Integer::sum);
    }
    return "IdempotentServer[" + requestNumbers.get() + " requests, " + ledger.size()
        + " effects, faults " + faultCounts + "]";
  }

  /** One key's record: fingerprint, when created, the stored answer (null while in progress). */
  private static final class KeyRecord {
    String fingerprint;
    final Instant createdAt;
    Answer stored;
    Operation operation;
    int inProgressAnswers;
    int busyRepeats;

    KeyRecord(String fingerprint, Instant createdAt) {
      this.fingerprint = fingerprint;
      this.createdAt = createdAt;
    }
  }

  /** One effect's operation: its status URL id, processing until done. */
  private static final class Operation {
    final String id;
    final EffectLedger.Effect effect;
    final Instant acceptedAt;
    ReceivedRequest request;
    int pollsLeft;
    boolean done;
    Answer result;

    Operation(String id, EffectLedger.Effect effect, ReceivedRequest request, Instant acceptedAt) {
      this.id = id;
      this.effect = effect;
      this.request = request;
      this.acceptedAt = acceptedAt;
    }
  }

  /**
   * A committed effect as the {@linkplain Builder#resultBody result body} hook sees it.
   *
   * @param id the operation's id ({@linkplain Builder#idPrefix prefix} + six digits), the last
   *     segment of its status URL
   * @param effect the effect in the ledger
   * @param request the request that committed it
   */
  public record Committed(String id, EffectLedger.Effect effect, ReceivedRequest request) {
    /** Validates the components. */
    public Committed {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(effect, "effect");
      Objects.requireNonNull(request, "request");
    }
  }

  /**
   * Mutable, not thread-safe builder of {@link IdempotentServer}. Each setter validates its value
   * and names the setting and the value it refuses.
   */
  public static final class Builder {
    private String keyHeader = DEFAULT_KEY_HEADER;
    private KeyQuoting keyQuoting = KeyQuoting.EITHER;
    private int maxKeyLength = DEFAULT_MAX_KEY_LENGTH;
    private String scopeHeader;
    private MismatchAnswer mismatch = MismatchAnswer.ietf();
    private int inProgressStatus = 409;
    private int retryAfterSeconds = 1;
    private ServerErrors serverErrors = ServerErrors.RE_EXECUTED;
    private Predicate<ReceivedRequest> asynchronous = r -> false;
    private boolean mayAccept;
    private int completeAfterPolls = 1;
    private Duration completeAfter;
    private String statusPath = STATUS_PATH;
    private String idPrefix = DEFAULT_ID_PREFIX;
    private Function<Committed, String> resultBody;
    private boolean locationOnCreated;
    private int maxBodyBytes = Integer.MAX_VALUE;
    private String inProgressContentType = "application/json";
    private String inProgressBody = DEFAULT_IN_PROGRESS_BODY;
    private PollStyle pollStyle = PollStyle.ACCEPTED;
    private HttpUrl statusOrigin;
    private boolean locationOnReplay = true;
    private boolean replayAcceptedForever;
    private boolean inProgressWhileAccepted;
    private Duration retention;
    private Clock clock = Clock.systemUTC();
    private FingerprintRule fingerprint = FingerprintRule.EXACT_BYTES;
    private boolean fingerprintQuery;
    private FaultScript faults = FaultScript.none();
    private Function<ReceivedRequest, String> intentOf;
    private Function<ReceivedRequest, String> businessRule;
    private boolean acceptKeyless;
    private Duration lateFor = DEFAULT_LATE_FOR;
    private Consumer<EffectLedger.Effect> onEffect;
    private String credentialHeader;
    private Predicate<String> credentialAccepted;

    private Builder() {}

    private Builder copy() {
      Builder b = new Builder();
      b.keyHeader = keyHeader;
      b.keyQuoting = keyQuoting;
      b.maxKeyLength = maxKeyLength;
      b.scopeHeader = scopeHeader;
      b.mismatch = mismatch;
      b.inProgressStatus = inProgressStatus;
      b.retryAfterSeconds = retryAfterSeconds;
      b.serverErrors = serverErrors;
      b.asynchronous = asynchronous;
      b.mayAccept = mayAccept;
      b.completeAfterPolls = completeAfterPolls;
      b.completeAfter = completeAfter;
      b.statusPath = statusPath;
      b.idPrefix = idPrefix;
      b.resultBody = resultBody;
      b.locationOnCreated = locationOnCreated;
      b.maxBodyBytes = maxBodyBytes;
      b.inProgressContentType = inProgressContentType;
      b.inProgressBody = inProgressBody;
      b.pollStyle = pollStyle;
      b.statusOrigin = statusOrigin;
      b.locationOnReplay = locationOnReplay;
      b.replayAcceptedForever = replayAcceptedForever;
      b.inProgressWhileAccepted = inProgressWhileAccepted;
      b.retention = retention;
      b.clock = clock;
      b.fingerprint = fingerprint;
      b.fingerprintQuery = fingerprintQuery;
      b.faults = faults;
      b.intentOf = intentOf;
      b.businessRule = businessRule;
      b.acceptKeyless = acceptKeyless;
      b.lateFor = lateFor;
      b.onEffect = onEffect;
      b.credentialHeader = credentialHeader;
      b.credentialAccepted = credentialAccepted;
      return b;
    }

    /**
     * Name of the key header; default {@value #DEFAULT_KEY_HEADER}.
     *
     * @throws IllegalArgumentException if blank
     */
    public Builder keyHeader(String name) {
      this.keyHeader = Keys.headerName(name);
      return this;
    }

    /** How the key header's value is read; default {@link KeyQuoting#EITHER}. */
    public Builder keyQuoting(KeyQuoting quoting) {
      this.keyQuoting = Objects.requireNonNull(quoting, "keyQuoting");
      return this;
    }

    /**
     * Longest accepted key (after unquoting); longer ones, like keys with characters outside
   * printable ASCII, get {@code 400}. Default
     * {@value #DEFAULT_MAX_KEY_LENGTH}.
     *
     * @throws IllegalArgumentException if below 1
     */
    public Builder maxKeyLength(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxKeyLength must be >= 1, was " + max);
      }
      this.maxKeyLength = max;
      return this;
    }

    /** Header whose value scopes keys (e.g. a tenant); default none (one scope). */
    public Builder scopeHeader(String name) {
      this.scopeHeader = Objects.requireNonNull(name, "scopeHeader");
      return this;
    }

    /** Answer to a key reused with another fingerprint; default {@link MismatchAnswer#ietf()}. */
    public Builder mismatch(MismatchAnswer answer) {
      this.mismatch = Objects.requireNonNull(answer, "mismatch");
      return this;
    }

    /**
     * Status of the answer to a repeat while the first request is in progress; default 409
     * (some servers use 425 or 429).
     *
     * @throws IllegalArgumentException if not in [400, 599]
     */
    public Builder inProgressStatus(int status) {
      if (status < 400 || status > 599) {
        throw new IllegalArgumentException("inProgressStatus must be in [400, 599], was " + status);
      }
      this.inProgressStatus = status;
      return this;
    }

    /**
     * {@code Retry-After} seconds on in-progress and {@code 202} answers and on the {@code 429}
     * and {@code 503} of {@link Fault#answer(int)}, or -1 for none; default 1.
     *
     * @throws IllegalArgumentException if below -1 or above 3600
     */
    public Builder retryAfterSeconds(int seconds) {
      if (seconds < -1 || seconds > 3600) {
        throw new IllegalArgumentException("retryAfterSeconds must be in [-1, 3600], was "
            + seconds);
      }
      this.retryAfterSeconds = seconds;
      return this;
    }

    /** What a handler 5xx does to the key; default {@link ServerErrors#RE_EXECUTED}. */
    public Builder serverErrors(ServerErrors policy) {
      this.serverErrors = Objects.requireNonNull(policy, "serverErrors");
      return this;
    }

    /**
     * Whether new effects are accepted with {@code 202} + status URL (true) or answered {@code
     * 201} at once (false, the default). The effect is committed at acceptance.
     */
    public Builder asynchronous(boolean async) {
      this.asynchronous = r -> async;
      this.mayAccept = async;
      return this;
    }

    /**
     * Decides per new effect whether it is accepted with {@code 202} + status URL ({@code
     * decide} returns true) or answered {@code 201} at once: e.g. a seeded share of slow
     * payments, or large amounts only. Called once per new effect, under the server's lock (keep
     * it fast); repeats get the key's stored answer and are not asked. Replaces {@link
     * #asynchronous(boolean)}; default: never.
     *
     * @throws NullPointerException if {@code decide} is null
     */
    public Builder asynchronousWhen(Predicate<ReceivedRequest> decide) {
      this.asynchronous = Objects.requireNonNull(decide, "asynchronousWhen");
      this.mayAccept = true;
      return this;
    }

    /**
     * How many polls of an accepted operation answer "processing" before the result; default 1.
     * Completion by polls and {@linkplain #completeAfter(Duration) by time} are alternatives:
     * the one set last applies.
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder completeAfterPolls(int polls) {
      if (polls < 0) {
        throw new IllegalArgumentException("completeAfterPolls must be >= 0, was " + polls);
      }
      this.completeAfterPolls = polls;
      this.completeAfter = null;
      return this;
    }

    /**
     * Completes an accepted operation once {@code delay} has passed since its acceptance, by the
     * {@linkplain #clock clock}, however often it is polled: polls and repeats before then get
     * "processing" (a fixed clock keeps operations processing until {@link
     * IdempotentServer#completeAccepted()}). Completion is evaluated when the operation is
     * polled, its key repeated or {@link IdempotentServer#acceptedPending()} asked, so no timer
     * thread runs. Replaces {@link #completeAfterPolls(int)} (the one set last applies); default:
     * by polls.
     *
     * @throws IllegalArgumentException if negative
     * @throws NullPointerException if {@code delay} is null
     */
    public Builder completeAfter(Duration delay) {
      Objects.requireNonNull(delay, "completeAfter");
      if (delay.isNegative()) {
        throw new IllegalArgumentException("completeAfter must not be negative, was " + delay);
      }
      this.completeAfter = delay;
      return this;
    }

    /**
     * Path prefix of status URLs, e.g. {@code /payments/} so that {@code GET /payments/{id}} is
     * the created resource and the accepted operation's status; default {@value #STATUS_PATH}.
     * Requests on paths under it are polls: {@code GET} answers, other methods get {@code 405}.
     *
     * @throws IllegalArgumentException if it does not start and end with {@code /} or is just
     *     {@code /}
     * @throws NullPointerException if {@code prefix} is null
     */
    public Builder statusPath(String prefix) {
      Objects.requireNonNull(prefix, "statusPath");
      if (prefix.length() < 2 || !prefix.startsWith("/") || !prefix.endsWith("/")) {
        throw new IllegalArgumentException(
            "statusPath must start and end with '/' and name a path, was '" + prefix + "'");
      }
      this.statusPath = prefix;
      return this;
    }

    /**
     * Prefix of operation ids (followed by six digits, the effect's sequence number), e.g. {@code
     * pay_}; default {@value #DEFAULT_ID_PREFIX}.
     *
     * @throws IllegalArgumentException if empty or not made of letters, digits, {@code _} and
     *     {@code -}
     * @throws NullPointerException if {@code prefix} is null
     */
    public Builder idPrefix(String prefix) {
      Objects.requireNonNull(prefix, "idPrefix");
      if (!prefix.matches("[A-Za-z0-9_-]+")) {
        throw new IllegalArgumentException(
            "idPrefix must be letters, digits, '_' or '-', was '" + prefix + "'");
      }
      this.idPrefix = prefix;
      return this;
    }

    /**
     * The application's representation of a committed effect (e.g. the payment as JSON), as the
     * body of the {@code 201}, of the completed status URL's {@code 200} and of their replays.
     * Called once per effect, under the server's lock when the effect completes (keep it fast;
     * it must not return null). Default: {@code {"id":..,"intent":..,"status":"succeeded"}}.
     *
     * @throws NullPointerException if {@code render} is null
     */
    public Builder resultBody(Function<Committed, String> render) {
      this.resultBody = Objects.requireNonNull(render, "resultBody");
      return this;
    }

    /**
     * Whether a {@code 201} carries {@code Location} with the created resource's status URL
     * (which answers {@code 200} with the result); default false.
     */
    public Builder locationOnCreated(boolean location) {
      this.locationOnCreated = location;
      return this;
    }

    /**
     * Largest accepted request body; a {@code POST}, {@code PUT}, {@code PATCH} or {@code DELETE}
     * with a longer one gets {@code 413} before its key is read (no record, no effect). Default:
     * no limit.
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder maxBodyBytes(int max) {
      if (max < 0) {
        throw new IllegalArgumentException("maxBodyBytes must be >= 0, was " + max);
      }
      this.maxBodyBytes = max;
      return this;
    }

    /**
     * Body of the in-progress answer, e.g. an {@code application/problem+json} document or
     * Stripe's {@code idempotency_key_in_use} error; default {@value #DEFAULT_IN_PROGRESS_BODY}
     * as {@code application/json}.
     *
     * @throws IllegalArgumentException if {@code contentType} is blank
     * @throws NullPointerException if an argument is null
     */
    public Builder inProgressBody(String contentType, String body) {
      Objects.requireNonNull(contentType, "contentType");
      Objects.requireNonNull(body, "body");
      if (contentType.isBlank()) {
        throw new IllegalArgumentException("inProgressBody contentType must not be blank");
      }
      this.inProgressContentType = contentType;
      this.inProgressBody = body;
      return this;
    }


    /** How a processing operation's status URL answers; default {@link PollStyle#ACCEPTED}. */
    public Builder pollStyle(PollStyle style) {
      this.pollStyle = Objects.requireNonNull(style, "pollStyle");
      return this;
    }

    /**
     * Puts status URLs on {@code origin} (absolute {@code Location}) instead of the request's own
     * origin (relative {@code Location}, the default). Mount this kit on a second MockWebServer
     * at that origin to answer the polls.
     */
    public Builder statusOrigin(HttpUrl origin) {
      this.statusOrigin = Objects.requireNonNull(origin, "statusOrigin");
      return this;
    }

    /** Whether a replayed {@code 202} keeps its {@code Location}; default true. */
    public Builder locationOnReplay(boolean keep) {
      this.locationOnReplay = keep;
      return this;
    }

    /**
     * Whether a key whose first answer was {@code 202} replays that {@code 202} even after the
     * operation completed (true), or the result (false, the default).
     */
    public Builder replayAcceptedForever(boolean forever) {
      this.replayAcceptedForever = forever;
      return this;
    }

    /**
     * Whether a repeat of a key whose operation was accepted ({@code 202}) and is still processing
     * gets the {@linkplain #inProgressStatus in-progress answer} and {@code Retry-After} (true)
     * instead of the stored {@code 202} with its {@code Location} (false, the default). Once the
     * operation is done a repeat gets the result, as without it. Some servers answer so: the
     * request with this key is still running, come back later.
     *
     * <p>{@link #build()} refuses it on a synchronous server (it has no {@code 202}).
     */
    public Builder inProgressWhileAccepted(boolean inProgress) {
      this.inProgressWhileAccepted = inProgress;
      return this;
    }

    /**
     * Key records older than {@code retention} (by the {@linkplain #clock clock}) are forgotten;
     * default: kept forever.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder retention(Duration retention) {
      Objects.requireNonNull(retention, "retention");
      if (retention.isNegative() || retention.isZero()) {
        throw new IllegalArgumentException("retention must be positive, was " + retention);
      }
      this.retention = retention;
      return this;
    }

    /** Clock of retention and of {@link ReceivedRequest#receivedAt()}; default system UTC. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** What makes two requests "the same"; default {@link FingerprintRule#EXACT_BYTES}. */
    public Builder fingerprint(FingerprintRule rule) {
      this.fingerprint = Objects.requireNonNull(rule, "fingerprint");
      return this;
    }

    /** Whether the query string is part of the fingerprint; default false. */
    public Builder fingerprintQuery(boolean include) {
      this.fingerprintQuery = include;
      return this;
    }

    /** Faults to inject; default {@link FaultScript#none()}. */
    public Builder faults(FaultScript script) {
      this.faults = Objects.requireNonNull(script, "faults");
      return this;
    }

    /**
     * Which business intent a request belongs to, for the ledger (e.g. {@link #jsonField
     * jsonField("order")}); a null result falls back to the key. Default: the key.
     */
    public Builder intentOf(Function<ReceivedRequest, String> extractor) {
      this.intentOf = Objects.requireNonNull(extractor, "intentOf");
      return this;
    }

    /**
     * A rule that refuses requests as a business decision: it returns a problem text (answered
     * {@code 400}, stored and replayed, no effect) or null to accept. Default: accept all.
     */
    public Builder businessRule(Function<ReceivedRequest, String> rule) {
      this.businessRule = Objects.requireNonNull(rule, "businessRule");
      return this;
    }

    /**
     * Whether a request without a key is executed (each one a new effect, the naive server) or
     * answered {@code 400} (false, the default).
     */
    public Builder acceptKeyless(boolean accept) {
      this.acceptKeyless = accept;
      return this;
    }

    /**
     * Longest time a {@link Fault#lateOriginal()} request is held; default {@link
     * #DEFAULT_LATE_FOR}.
     *
     * @throws IllegalArgumentException if negative or above 10 minutes
     */
    public Builder lateFor(Duration d) {
      Objects.requireNonNull(d, "lateFor");
      if (d.isNegative() || d.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("lateFor must be in [0, 10 min], was " + d);
      }
      this.lateFor = d;
      return this;
    }

    /**
     * Called on the request's thread right after each effect is committed, before the answer is
     * stored or sent: lets a crash test hold the server in that moment. It must not throw.
     */
    public Builder onEffect(Consumer<EffectLedger.Effect> listener) {
      this.onEffect = Objects.requireNonNull(listener, "onEffect");
      return this;
    }

    /**
     * Requires a valid credential on every {@code POST}, {@code PUT}, {@code PATCH} and {@code
     * DELETE}, as an API whose tokens expire: a request whose {@code header} value (null when
     * absent) {@code accepted} refuses gets {@code 401} with {@code WWW-Authenticate: Bearer
     * error="invalid_token"} before its key is read (no record, no effect), so a client may send
     * the same key again with a fresh token. Status URLs and other {@code GET}s are not checked: a
     * status URL may live on another origin that the client must not send the credential to.
     * Default: no credential required.
     *
     * @throws IllegalArgumentException if {@code header} is blank
     * @throws NullPointerException if an argument is null
     */
    public Builder requireCredential(String header, Predicate<String> accepted) {
      Objects.requireNonNull(header, "header");
      if (header.isBlank()) {
        throw new IllegalArgumentException("requireCredential header must not be blank");
      }
      this.credentialHeader = header;
      this.credentialAccepted = Objects.requireNonNull(accepted, "accepted");
      return this;
    }

    /**
     * Returns the server.
     *
     * @throws IllegalStateException if {@link #replayAcceptedForever} or {@link
     *     #inProgressWhileAccepted} is set on a synchronous server (it has no {@code 202})
     */
    public IdempotentServer build() {
      if (replayAcceptedForever && !mayAccept) {
        throw new IllegalStateException(
            "replayAcceptedForever needs asynchronous(true) or asynchronousWhen(..):"
                + " a synchronous server has no 202");
      }
      if (inProgressWhileAccepted && !mayAccept) {
        throw new IllegalStateException(
            "inProgressWhileAccepted needs asynchronous(true) or asynchronousWhen(..):"
                + " a synchronous server has no 202");
      }
      return new IdempotentServer(this);
    }
  }
}
