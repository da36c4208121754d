package dev.oncely.examples.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP/1.1 payments server on the JDK's {@code com.sun.net.httpserver}, bound to loopback
 * only, that implements the server side of the idempotency contract and injects seeded faults.
 * Tests, benchmarks and the demo point clients at it and read {@link #stats()} to count business
 * effects and duplicates.
 *
 * <h2>Endpoints</h2>
 *
 * <ul>
 *   <li>{@code POST /payments}, JSON body with a positive integer {@code amount} (and optional
 *       {@code currency}, {@code customer}, {@code order} strings). With an
 *       {@code Idempotency-Key} (quoted {@code "k"} or plain {@code k}) and optional
 *       {@code X-Tenant} scope (default {@code default}), the (scope, operation, key) record is
 *       reserved atomically before the payment is created; answers {@code 201} + payment +
 *       {@code Location}; a repeat with the same normalized payload gets the stored status and
 *       body byte for byte plus {@code Idempotent-Replayed: true}; a repeat while the first is
 *       processing gets {@code 409} + {@code Retry-After}; the key with another payload gets
 *       {@code 422} ({@code 400} {@code idempotency_error} in {@link ServerDialect#STRIPE}). A bad
 *       amount is a business refusal ({@code 400}), stored and replayed. Without a key: {@code
 *       400}, or a new payment per request if {@link Builder#acceptKeyless(boolean)} is on.
 *   <li>A share ({@link Builder#slowShare(double)}) of new payments answers {@code 202} +
 *       {@code Location: /payments/{id}} + {@code Retry-After} and is created after {@link
 *       Builder#slowFor(Duration)}; {@code GET /payments/{id}} answers {@code 202} while
 *       processing, {@code 200} + payment when done, {@code 404} if unknown.
 *   <li>{@code GET /stats}: {@link ServerStats#toJson()}. Never faulted.
 * </ul>
 *
 * Faults ({@link FaultPlan}) apply to {@code /payments} requests only. Records and payments live
 * in memory for the server's lifetime. Loading this class sets the JDK server's {@code
 * sun.net.httpserver.nodelay} system property to {@code true} unless it is already set, because
 * Nagle's algorithm otherwise adds about 40 ms to every keep-alive response.
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
  /** Default delay before a slow ({@code 202}) payment is created. */
  public static final Duration DEFAULT_SLOW_FOR = Duration.ofMillis(200);
  /** Default {@code Retry-After} seconds on {@code 202}, {@code 409} and {@code 503}. */
  public static final int DEFAULT_RETRY_AFTER_SECONDS = 1;

  static {
    // The JDK server writes headers and body in two writes; with Nagle's algorithm on, the body
    // waits for the client's delayed ACK (~40 ms per response). Read once, when the first
    // HttpServer is created; an explicit setting by the user wins.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final int requestedPort;
  private final ServerDialect dialect;
  private final StatsRecorder stats = new StatsRecorder();
  private final ScheduledExecutorService scheduler;
  private final ExecutorService handlers;
  private final SlowOperations slowOps;
  private final StallRoom stalls;
  private final PaymentsHandler payments;
  private HttpServer http;
  private boolean closed;

  private ReferenceServer(Builder b) {
    this.requestedPort = b.port;
    this.dialect = b.dialect;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(threads("oncely-ref-timer"));
    this.handlers = Executors.newCachedThreadPool(threads("oncely-ref-handler"));
    this.slowOps = new SlowOperations(scheduler, b.slowFor);
    this.stalls = new StallRoom(scheduler);
    this.payments = new PaymentsHandler(b.faults, b.acceptKeyless, b.slowShare, stats,
        new ErrorReplies(dialect, b.retryAfterSeconds), slowOps, stalls);
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
    if (http != null || closed) {
      throw new IllegalStateException(closed ? "server is closed" : "server already started");
    }
    try {
      http = HttpServer.create(
          new InetSocketAddress(InetAddress.getLoopbackAddress(), requestedPort), 128);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind loopback port " + requestedPort, e);
    }
    http.setExecutor(handlers);
    http.createContext("/payments", payments);
    http.createContext("/stats", this::serveStats);
    http.start();
    return this;
  }

  private void serveStats(HttpExchange ex) throws IOException {
    if (!ex.getRequestMethod().equals("GET")) {
      ex.getResponseHeaders().set("Allow", "GET");
      ex.sendResponseHeaders(405, -1);
      ex.close();
      return;
    }
    Exchanges.send(ex, Reply.of(200, Reply.JSON,
        stats().toJson().getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The bound port.
   *
   * @throws IllegalStateException if not started
   */
  public synchronized int port() {
    if (http == null) {
      throw new IllegalStateException("server not started");
    }
    return http.getAddress().getPort();
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
    return payments.faults();
  }

  /**
   * Applies {@code plan} to requests arriving from now on, restarting its seeded draws; requests
   * already running keep the old plan. Lets a test or the demo break and heal the network.
   *
   * @throws NullPointerException if {@code plan} is null
   */
  public void changeFaults(FaultPlan plan) {
    payments.changeFaults(Objects.requireNonNull(plan, "plan"));
  }

  /** A snapshot of the counters; see {@link ServerStats} for its consistency. */
  public ServerStats stats() {
    return stats.snapshot();
  }

  /**
   * Creates every slow payment still processing now, on the calling thread, instead of waiting
   * for its timer; lets tests reach the final state without sleeping.
   *
   * @return how many payments this call created
   */
  public int finishSlowOperationsNow() {
    return slowOps.finishAllNow();
  }

  /** Slow payments accepted with {@code 202} and not yet created. */
  public int slowOperationsPending() {
    return slowOps.pendingCount();
  }

  /**
   * Stops the server: stops accepting, closes open and stalled connections, drops unfinished slow
   * operations. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stalls.releaseAll();
    if (http != null) {
      http.stop(0);
    }
    scheduler.shutdownNow();
    handlers.shutdownNow();
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
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

    private Builder() {}

    /**
     * Loopback port to bind; 0 (the default) picks a free one.
     *
     * @throws IllegalArgumentException if not in [0, 65535]
     */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be in [0, 65535], was " + port);
      }
      this.port = port;
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
     * Share of new payments answered {@code 202} and created later; default 0.
     *
     * @throws IllegalArgumentException if not in [0, 1]
     */
    public Builder slowShare(double share) {
      if (!(share >= 0.0 && share <= 1.0)) {
        throw new IllegalArgumentException("slowShare must be in [0, 1], was " + share);
      }
      this.slowShare = share;
      return this;
    }

    /**
     * Delay before a slow payment is created; default {@link #DEFAULT_SLOW_FOR}.
     *
     * @throws IllegalArgumentException if negative or above {@link FaultPlan#MAX_DURATION}
     */
    public Builder slowFor(Duration delay) {
      Objects.requireNonNull(delay, "slowFor");
      if (delay.isNegative() || delay.compareTo(FaultPlan.MAX_DURATION) > 0) {
        throw new IllegalArgumentException(
            "slowFor must be between 0 and " + FaultPlan.MAX_DURATION + ", was " + delay);
      }
      this.slowFor = delay;
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
     * {@code Retry-After} seconds on {@code 202}, {@code 409} and {@code 503}; default
     * {@link #DEFAULT_RETRY_AFTER_SECONDS}.
     *
     * @throws IllegalArgumentException if not in [0, 3600]
     */
    public Builder retryAfterSeconds(int seconds) {
      if (seconds < 0 || seconds > 3600) {
        throw new IllegalArgumentException(
            "retryAfterSeconds must be in [0, 3600], was " + seconds);
      }
      this.retryAfterSeconds = seconds;
      return this;
    }

    /** Returns a server that is configured but not yet listening; call {@link #start()}. */
    public ReferenceServer build() {
      return new ReferenceServer(this);
    }
  }
}
