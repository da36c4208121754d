package dev.oncely.testing;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import okhttp3.HttpUrl;
import org.jspecify.annotations.Nullable;

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

  private final EffectLedger ledger = new EffectLedger();
  private final RequestLog log = new RequestLog();
  private final Traffic traffic = new Traffic();
  private final ServerLock lock = new ServerLock();
  private final KeyStore keys;
  private final Operations operations;
  private final FaultInjector faults;
  private final RequestRouter router;

  /** A fault the server injected, with the number of the request it hit. */
  public record InjectedFault(int requestNumber, Fault fault) {}

  // One part per job, all under one ServerLock: the router takes each request past the fault
  // injector to the submissions (key store, effect handler) or the operations (status URLs).
  private IdempotentServer(ServerConfig config) {
    this.keys = new KeyStore(config, lock);
    this.operations = new Operations(config, lock);
    this.faults = new FaultInjector(config, lock, keys, operations);
    EffectHandler handler = new EffectHandler(config, lock, ledger, keys, operations);
    Submissions submissions = new Submissions(config, lock, keys, handler, operations);
    this.router = new RequestRouter(config, traffic, log, keys, faults, submissions, operations);
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
  public static Function<ReceivedRequest, @Nullable String> jsonField(String field) {
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
    return traffic.answers();
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
    return keys.storedBody(scope, key);
  }

  /** The faults injected so far, in request order. */
  public List<InjectedFault> injectedFaults() {
    return faults.injected();
  }

  /**
   * Applies {@code script} to the requests that arrive from now on (request numbers keep
   * counting). Lets a test break and heal the network.
   *
   * @throws NullPointerException if {@code script} is null
   */
  public void changeFaults(FaultScript script) {
    faults.change(script);
  }

  /**
   * Forgets every key record, as a server whose idempotency store was wiped; effects and the
   * status of operations stay. Effects committed later for a forgotten key are marked {@link
   * EffectLedger.Effect#afterServerForgot()}.
   */
  public void forgetAllKeys() {
    keys.forgetAll();
  }

  /**
   * Completes every accepted operation now, as if its processing finished.
   *
   * @return how many operations this call completed
   */
  public int completeAccepted() {
    return operations.completeAll();
  }

  /**
   * How many accepted operations are still processing now (after completing those whose
   * {@linkplain Builder#completeAfter(Duration) time} has come).
   */
  public int acceptedPending() {
    return operations.pending();
  }

  /** The number of requests received so far. */
  public int requestCount() {
    return traffic.requestCount();
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
    return traffic.awaitQuiet(quietFor, timeout);
  }

  @Override
  public MockResponse dispatch(RecordedRequest recorded) throws InterruptedException {
    return router.dispatch(recorded);
  }

  /** Releases every held late original and stalled request. */
  @Override
  public void close() {
    lock.close();
  }

  @Override
  public String toString() {
    Map<String, Integer> faultCounts = new TreeMap<>();
    for (InjectedFault f : injectedFaults()) {
      faultCounts.merge(f.fault().toString(), 1, Integer::sum);
    }
    return "IdempotentServer[" + requestCount() + " requests, " + ledger.size()
        + " effects, faults " + faultCounts + "]";
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
    // Package-private: ServerConfig copies them at build(). Null means "not set".
    String keyHeader = DEFAULT_KEY_HEADER;
    KeyQuoting keyQuoting = KeyQuoting.EITHER;
    int maxKeyLength = DEFAULT_MAX_KEY_LENGTH;
    @Nullable String scopeHeader;
    MismatchAnswer mismatch = MismatchAnswer.ietf();
    int inProgressStatus = 409;
    int retryAfterSeconds = 1;
    ServerErrors serverErrors = ServerErrors.RE_EXECUTED;
    Predicate<ReceivedRequest> asynchronous = r -> false;
    /** Whether the server may answer 202: build() refuses the settings that need it otherwise. */
    private boolean mayAccept;
    int completeAfterPolls = 1;
    @Nullable Duration completeAfter;
    String statusPath = STATUS_PATH;
    String idPrefix = DEFAULT_ID_PREFIX;
    @Nullable Function<Committed, String> resultBody;
    boolean locationOnCreated;
    int maxBodyBytes = Integer.MAX_VALUE;
    String inProgressContentType = "application/json";
    String inProgressBody = DEFAULT_IN_PROGRESS_BODY;
    PollStyle pollStyle = PollStyle.ACCEPTED;
    @Nullable HttpUrl statusOrigin;
    boolean locationOnReplay = true;
    boolean replayAcceptedForever;
    boolean inProgressWhileAccepted;
    @Nullable Duration retention;
    Clock clock = Clock.systemUTC();
    FingerprintRule fingerprint = FingerprintRule.EXACT_BYTES;
    boolean fingerprintQuery;
    FaultScript faults = FaultScript.none();
    @Nullable Function<ReceivedRequest, @Nullable String> intentOf;
    @Nullable Function<ReceivedRequest, @Nullable String> businessRule;
    boolean acceptKeyless;
    Duration lateFor = DEFAULT_LATE_FOR;
    @Nullable Consumer<EffectLedger.Effect> onEffect;
    @Nullable String credentialHeader;
    @Nullable Predicate<@Nullable String> credentialAccepted;

    private Builder() {}

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
    public Builder intentOf(Function<ReceivedRequest, @Nullable String> extractor) {
      this.intentOf = Objects.requireNonNull(extractor, "intentOf");
      return this;
    }

    /**
     * A rule that refuses requests as a business decision: it returns a problem text (answered
     * {@code 400}, stored and replayed, no effect) or null to accept. Default: accept all.
     */
    public Builder businessRule(Function<ReceivedRequest, @Nullable String> rule) {
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
    public Builder requireCredential(String header, Predicate<@Nullable String> accepted) {
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
      return new IdempotentServer(new ServerConfig(this));
    }
  }
}
