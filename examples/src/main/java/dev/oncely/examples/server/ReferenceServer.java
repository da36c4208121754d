package dev.oncely.examples.server;

import dev.oncely.examples.SettingRules;
import dev.oncely.testing.FingerprintRule;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.MismatchAnswer;
import dev.oncely.testing.NoDelayServerSockets;
import dev.oncely.testing.ReceivedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.function.Predicate;
import mockwebserver3.MockWebServer;

/**
 * A real HTTP/1.1 payments server on loopback: the testing kit's {@link IdempotentServer}
 * configured for a payments API, on a MockWebServer, with the demo's seeded {@link FaultPlan}.
 * Tests, benchmarks and the demo point clients at it and read {@link #stats()} to count business
 * effects and duplicates; {@link #kit()} gives the kit's ledger and request log.
 *
 * <h2>Endpoints</h2>
 *
 * <ul>
 *   <li>{@code POST /payments}, a JSON object body (at most {@value #MAX_BODY_BYTES} bytes, else
 *       {@code 413}; not an object: {@code 400}, nothing reserved) with a positive integer {@code
 *       amount} (and optional {@code currency}, {@code customer}, {@code order} strings). The kit
 *       does the rest: with an {@code Idempotency-Key} (quoted {@code "k"} or plain {@code k}) and
 *       optional {@code X-Tenant} scope, the (scope, key) record is reserved atomically before the
 *       payment is created; answers {@code 201} + the payment + {@code Location:
 *       /payments/{id}}; a repeat with the same JSON (member order and blanks do not matter) gets
 *       the stored status and body byte for byte plus {@code Idempotent-Replayed: true}; a repeat
 *       while the first is processing gets {@code 409} + {@code Retry-After}; the key with another
 *       payload gets {@code 422} problem+json ({@code 400} {@code idempotency_error} in {@link
 *       ServerDialect#STRIPE}). A bad amount is a business refusal ({@code 400}), stored and
 *       replayed. Without a key: {@code 400}, or a new payment per request if {@link
 *       Builder#acceptKeyless(boolean)} is on.
 *   <li>A seeded share ({@link Builder#slowShare(double)}) of new payments is accepted: {@code
 *       202} + {@code Location: /payments/{id}} + {@code Retry-After}, the payment committed at
 *       acceptance and completed {@link Builder#slowFor(Duration)} later; repeats of its key get
 *       the {@code 202} again (with {@code Location}) until then, then the payment ({@code 200}).
 *       {@code GET /payments/{id}} answers {@code 202} while processing, {@code 200} + payment
 *       when done, {@code 404} if unknown.
 *   <li>{@code GET /stats}: {@link ServerStats#toJson()}. Never faulted.
 * </ul>
 *
 * Faults ({@link FaultPlan}) apply to the payments paths only. Records and payments live in
 * memory for the server's lifetime, like every request the kit logs.
 *
 * <p>Thread-safe. {@link #start()} once; {@link #close()} stops accepting, closes held
 * connections and is idempotent. Example:
 *
 * <pre>{@code
 * try (ReferenceServer server = ReferenceServer.builder()
 *     .faults(FaultPlan.parse("drop=0.2,seed=42"))
 *     .build()
 *     .start()) {
 *   String url = server.baseUrl() + "payments";
 *   ...
 *   long duplicates = server.stats().duplicates();
 * }
 * }</pre>
 */
public final class ReferenceServer implements AutoCloseable {
  /** Default time after which a slow ({@code 202}) payment completes. */
  public static final Duration DEFAULT_SLOW_FOR = Duration.ofMillis(200);
  /** Default {@code Retry-After} seconds on {@code 202} and {@code 409}. */
  public static final int DEFAULT_RETRY_AFTER_SECONDS = 1;
  /** Largest accepted {@code POST /payments} body. */
  public static final int MAX_BODY_BYTES = 64 * 1024;
  /** Header whose value scopes keys. */
  public static final String SCOPE_HEADER = "X-Tenant";

  private final int requestedPort;
  private final ServerDialect dialect;
  private final IdempotentServer kit;
  private final MockWebServer web = new MockWebServer();
  private final Routes routes;
  private volatile FaultPlan plan;
  private boolean started;
  private boolean closed;

  private ReferenceServer(Builder b) {
    this.requestedPort = b.port;
    this.dialect = b.dialect;
    this.plan = b.faults;
    this.kit = kit(b);
    this.routes = new Routes(web, kit, dialect, () -> plan, this::stats, b.bearerToken);
    web.setServerSocketFactory(new NoDelayServerSockets());
    web.setDispatcher(routes);
  }

  private static IdempotentServer kit(Builder b) {
    boolean stripe = b.dialect == ServerDialect.STRIPE;
    return IdempotentServer.builder()
        .scopeHeader(SCOPE_HEADER)
        .mismatch(stripe ? MismatchAnswer.stripe() : MismatchAnswer.ietf())
        .inProgressBody(stripe ? "application/json" : "application/problem+json",
            stripe ? STRIPE_IN_PROGRESS : IETF_IN_PROGRESS)
        .retryAfterSeconds(b.retryAfterSeconds)
        .fingerprint(FingerprintRule.JSON_ANY_KEY_ORDER)
        .acceptKeyless(b.acceptKeyless)
        .intentOf(IdempotentServer.jsonField("order"))
        .businessRule(Payments::refusal)
        .statusPath(Routes.COLLECTION + "/")
        .idPrefix("pay_")
        .resultBody(Payments::json)
        .locationOnCreated(true)
        .maxBodyBytes(MAX_BODY_BYTES)
        .asynchronousWhen(slowChoice(b.slowShare, b.faults.seed()))
        .completeAfter(b.slowFor)
        .faults(b.faults.toScript())
        .build();
  }

  private static final String IETF_IN_PROGRESS = "{\"type\":\"about:blank\","
      + "\"title\":\"A request is outstanding for this Idempotency-Key\",\"status\":409,"
      + "\"detail\":\"the first request with this key is still processing; retry later with the"
      + " same key\"}";
  private static final String STRIPE_IN_PROGRESS = "{\"error\":{\"type\":\"idempotency_error\","
      + "\"code\":\"idempotency_key_in_use\",\"message\":\"A request is outstanding for this"
      + " Idempotency-Key: retry later with the same key\"}}";

  /** A seeded draw per new payment: accepted as slow with probability {@code share}. */
  private static Predicate<ReceivedRequest> slowChoice(double share, long seed) {
    if (share <= 0) {
      return r -> false;
    }
    Random random = new Random(~seed);
    return r -> {
      synchronized (random) {
        return random.nextDouble() < share;
      }
    };
  }

  /** A builder with the defaults: ephemeral port, IETF dialect, no faults, no slow share. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds to loopback and starts serving.
   *
   * @return this server, for chaining
   * @throws IllegalStateException if already started or closed
   * @throws UncheckedIOException if the port cannot be bound
   */
  public synchronized ReferenceServer start() {
    if (started || closed) {
      throw new IllegalStateException(closed ? "server is closed" : "server already started");
    }
    try {
      web.start(InetAddress.getLoopbackAddress(), requestedPort);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind loopback port " + requestedPort, e);
    }
    started = true;
    return this;
  }

  /**
   * The bound port.
   *
   * @throws IllegalStateException if not started
   */
  public synchronized int port() {
    if (!started) {
      throw new IllegalStateException("server not started");
    }
    return web.getPort();
  }

  /**
   * The base URL with a trailing slash, e.g. {@code http://127.0.0.1:43121/}.
   *
   * @throws IllegalStateException if not started
   */
  public String baseUrl() {
    return "http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + port() + "/";
  }

  /** The dialect this server speaks. */
  public ServerDialect dialect() {
    return dialect;
  }

  /** The fault plan this server applies now. */
  public FaultPlan faults() {
    return plan;
  }

  /**
   * Applies {@code plan} to requests arriving from now on, restarting its seeded draws; requests
   * already running keep the old plan. Lets a test or the demo break and heal the network.
   *
   * @throws NullPointerException if {@code plan} is null
   */
  public void changeFaults(FaultPlan plan) {
    Objects.requireNonNull(plan, "plan");
    kit.changeFaults(plan.toScript());
    this.plan = plan;
  }

  /** The testing kit's server behind this one: its ledger, request log and served answers. */
  public IdempotentServer kit() {
    return kit;
  }

  /** A snapshot of the counters; see {@link ServerStats} for its consistency. */
  public ServerStats stats() {
    return ServerStats.of(kit, routes.delayed(), routes.invalidBodies());
  }

  /**
   * Completes every slow payment still processing now, instead of waiting for its time; lets
   * tests reach the final state without sleeping.
   *
   * @return how many payments this call completed
   */
  public int finishSlowOperationsNow() {
    return kit.completeAccepted();
  }

  /** Slow payments accepted with {@code 202} and not yet completed. */
  public int slowOperationsPending() {
    return kit.acceptedPending();
  }

  /**
   * Stops the server: stops accepting, closes open and stalled connections. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    kit.close();
    web.close();
  }

  /**
   * Mutable, not thread-safe builder of {@link ReferenceServer}. Each setter validates its value
   * and names the setting and the value when it refuses it.
   */
  public static final class Builder {
    private int port;
    private ServerDialect dialect = ServerDialect.IETF;
    private FaultPlan faults = FaultPlan.none();
    private double slowShare;
    private Duration slowFor = DEFAULT_SLOW_FOR;
    private boolean acceptKeyless;
    private int retryAfterSeconds = DEFAULT_RETRY_AFTER_SECONDS;
    private String bearerToken;

    private Builder() {}

    /**
     * Loopback port to bind; 0 (the default) picks a free one.
     *
     * @throws IllegalArgumentException if not in [0, 65535]
     */
    public Builder port(int port) {
      this.port = SettingRules.inRange("port", port, 0, 65535);
      return this;
    }

    /** Dialect of the idempotency answers; default {@link ServerDialect#IETF}. */
    public Builder dialect(ServerDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /** Faults to inject; default {@link FaultPlan#none()}. Its seed also picks slow payments. */
    public Builder faults(FaultPlan faults) {
      this.faults = Objects.requireNonNull(faults, "faults");
      return this;
    }

    /**
     * Share of new payments accepted with {@code 202} and completed later; default 0.
     *
     * @throws IllegalArgumentException if not in [0, 1]
     */
    public Builder slowShare(double share) {
      this.slowShare = SettingRules.share("slowShare", share);
      return this;
    }

    /**
     * Time after which a slow payment completes; default {@link #DEFAULT_SLOW_FOR}.
     *
     * @throws IllegalArgumentException if negative or above {@link FaultPlan#MAX_DURATION}
     */
    public Builder slowFor(Duration delay) {
      this.slowFor = SettingRules.inRange("slowFor", delay, Duration.ZERO,
          FaultPlan.MAX_DURATION);
      return this;
    }

    /**
     * Whether a {@code POST /payments} without {@code Idempotency-Key} creates a new payment
     * (true, the naive-client mode) or gets {@code 400} (false, the default).
     */
    public Builder acceptKeyless(boolean accept) {
      this.acceptKeyless = accept;
      return this;
    }

    /**
     * {@code Retry-After} seconds on {@code 202} and {@code 409}; default
     * {@link #DEFAULT_RETRY_AFTER_SECONDS}.
     *
     * @throws IllegalArgumentException if not in [0, 3600]
     */
    public Builder retryAfterSeconds(int seconds) {
      this.retryAfterSeconds = SettingRules.inRange("retryAfterSeconds", seconds, 0, 3600);
      return this;
    }

    /**
     * Requires {@code Authorization: Bearer <token>} on every payments request, answering {@code
     * 401} with {@code WWW-Authenticate: Bearer} (and no effect) otherwise; default: no token.
     *
     * @throws IllegalArgumentException if {@code token} is blank or holds a character a header
     *     value cannot carry
     */
    public Builder bearerToken(String token) {
      Objects.requireNonNull(token, "bearerToken");
      if (token.isBlank() || !token.chars().allMatch(c -> c > 32 && c < 127)) {
        throw new IllegalArgumentException("bearerToken must be visible ASCII without spaces");
      }
      this.bearerToken = token;
      return this;
    }

    /** Returns a server that is configured but not yet listening; call {@link #start()}. */
    public ReferenceServer build() {
      return new ReferenceServer(this);
    }
  }
}
