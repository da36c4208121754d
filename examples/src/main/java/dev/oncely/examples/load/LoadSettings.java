package dev.oncely.examples.load;

import dev.oncely.client.dialect.StatusUrlResolver;
import dev.oncely.examples.SettingRules;
import dev.oncely.examples.server.ServerDialect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Settings of one load-driver run or resume. Immutable; {@link #builder()} validates each setting
 * and names it with the bad value.
 */
public final class LoadSettings {
  /** Default number of intents driven at once. */
  public static final int DEFAULT_CONCURRENCY = 32;
  /** Default attempts per drive, the first included. */
  public static final int DEFAULT_MAX_ATTEMPTS = 20;
  /** Default per-attempt timeout. */
  public static final Duration DEFAULT_ATTEMPT_TIMEOUT = Duration.ofSeconds(5);
  /** Default longest backoff between two attempts: the client's own default. */
  public static final Duration DEFAULT_MAX_DELAY = dev.oncely.client.RetryPolicy.DEFAULT_MAX_DELAY;
  /** Default deadline of one drive. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofMinutes(2);
  /** What {@link Builder#statusUrlTemplate(String)} accepts, worded for messages. */
  public static final String STATUS_URL_TEMPLATE_RULE = "an absolute path with {} where the value"
      + " goes (not in the query), such as /payments/{}";

  private final String target;
  private final int intents;
  private final int concurrency;
  private final Path storeDir;
  private final String dialect;
  private final StoreEngine engine;
  private final Duration attemptTimeout;
  private final Duration deadline;
  private final int maxAttempts;
  private final Duration maxDelay;
  private final long seed;
  private final boolean retryBudget;
  private final boolean interceptor;
  private final String statusUrlPointer;
  private final String statusUrlTemplate;
  private final StatusUrlResolver statusUrlResolver;

  private LoadSettings(Builder b) {
    this.target = b.target;
    this.intents = b.intents;
    this.concurrency = b.concurrency;
    this.storeDir = b.storeDir;
    this.dialect = b.dialect;
    this.engine = b.engine;
    this.attemptTimeout = b.attemptTimeout;
    this.deadline = b.deadline;
    this.maxAttempts = b.maxAttempts;
    this.maxDelay = b.maxDelay;
    this.seed = b.seed;
    this.retryBudget = b.retryBudget;
    this.interceptor = b.interceptor;
    this.statusUrlPointer = b.statusUrlPointer;
    this.statusUrlTemplate = b.statusUrlTemplate;
    this.statusUrlResolver = b.statusUrlPointer == null
        ? StatusUrlResolver.NONE
        : StatusUrlFromBody.resolver(b.statusUrlPointer, b.statusUrlTemplate);
  }

  /**
   * Whether intents go through plain OkHttp with the {@code IdempotencyInterceptor} and tagged
   * requests instead of {@code IdempotentClient}; default false.
   */
  public boolean interceptor() {
    return interceptor;
  }

  /** A builder with the defaults; target, intents and store directory have none. */
  public static Builder builder() {
    return new Builder();
  }

  /** The URL intents are {@code POST}ed to. */
  public String target() {
    return target;
  }

  /** How many intents the run has; 0 for a resume that takes the count from the store. */
  public int intents() {
    return intents;
  }

  /** How many intents are driven at once. */
  public int concurrency() {
    return concurrency;
  }

  /** The directory holding the store files and the run manifest. */
  public Path storeDir() {
    return storeDir;
  }

  /** {@code ietf} or {@code stripe}. */
  public String dialect() {
    return dialect;
  }

  /** The durable store engine, or null to use the one already in the directory (else SQLite). */
  public StoreEngine engine() {
    return engine;
  }

  /** Timeout of one attempt. */
  public Duration attemptTimeout() {
    return attemptTimeout;
  }

  /** Overall deadline of one drive of one intent. */
  public Duration deadline() {
    return deadline;
  }

  /** Attempts per drive, the first included. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** The longest backoff between two attempts ({@code RetryPolicy.maxDelay}). */
  public Duration maxDelay() {
    return maxDelay;
  }

  /** Seed of the backoff jitter (keys stay random). */
  public long seed() {
    return seed;
  }

  /** Whether the client's standard retry budget applies (false: unlimited retries). */
  public boolean retryBudget() {
    return retryBudget;
  }

  /** The JSON Pointer to a {@code 202} body's status id, or null when bodies are not read. */
  public String statusUrlPointer() {
    return statusUrlPointer;
  }

  /** The status URL template with {@code {}} for the id, or null when bodies are not read. */
  public String statusUrlTemplate() {
    return statusUrlTemplate;
  }

  /**
   * How the dialect finds the status URL of a {@code 202} without {@code Location}: from its body
   * by {@link #statusUrlPointer()} and {@link #statusUrlTemplate()}, or {@link
   * StatusUrlResolver#NONE} when they are not set.
   */
  public StatusUrlResolver statusUrlResolver() {
    return statusUrlResolver;
  }

  /** The durable engines a run can use. */
  public enum StoreEngine {
    /** {@code dev.oncely.persistence.SqliteIntentStore}, file {@code intents.sqlite}. */
    SQLITE("intents.sqlite"),
    /** {@code dev.oncely.persistence.MapDbIntentStore}, control file {@code intents.mapdb}. */
    MAPDB("intents.mapdb");

    private final String fileName;

    StoreEngine(String fileName) {
      this.fileName = fileName;
    }

    /** The store's file name inside the store directory. */
    public String fileName() {
      return fileName;
    }

    /**
     * Parses {@code sqlite} or {@code mapdb}, ignoring case.
     *
     * @throws IllegalArgumentException naming the value otherwise
     */
    public static StoreEngine parse(String name) {
      switch (name.trim().toLowerCase(Locale.ROOT)) {
        case "sqlite":
          return SQLITE;
        case "mapdb":
          return MAPDB;
        default:
          throw new IllegalArgumentException("engine must be sqlite or mapdb, was '" + name + "'");
      }
    }
  }

  /** Mutable, not thread-safe builder of {@link LoadSettings}. */
  public static final class Builder {
    private String target;
    private int intents;
    private int concurrency = DEFAULT_CONCURRENCY;
    private Path storeDir;
    private String dialect = "ietf";
    private StoreEngine engine;
    private Duration attemptTimeout = DEFAULT_ATTEMPT_TIMEOUT;
    private Duration deadline = DEFAULT_DEADLINE;
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration maxDelay = DEFAULT_MAX_DELAY;
    private long seed;
    private boolean retryBudget;
    private boolean interceptor;
    private String statusUrlPointer;
    private String statusUrlTemplate;

    private Builder() {}

    /**
     * @throws IllegalArgumentException if {@code url} is not an absolute http(s) URL
     */
    public Builder target(String url) {
      this.target = SettingRules.httpUrl("target", url);
      return this;
    }

    /** @throws IllegalArgumentException if not in [1, 10,000,000] */
    public Builder intents(int n) {
      this.intents = SettingRules.inRange("intents", n, 1, 10_000_000);
      return this;
    }

    /** @throws IllegalArgumentException if not in [1, 1024] */
    public Builder concurrency(int n) {
      this.concurrency = SettingRules.inRange("concurrency", n, 1, 1024);
      return this;
    }

    /** The directory for the store and the manifest; created if missing. */
    public Builder storeDir(Path dir) {
      this.storeDir = Objects.requireNonNull(dir, "store").toAbsolutePath().normalize();
      return this;
    }

    /** @throws IllegalArgumentException if not {@code ietf} or {@code stripe} */
    public Builder dialect(String name) {
      this.dialect = ServerDialect.parse(name).name().toLowerCase(Locale.ROOT);
      return this;
    }

    /** The engine; null (the default) picks the one already in the directory, else SQLite. */
    public Builder engine(StoreEngine engine) {
      this.engine = engine;
      return this;
    }

    /** @throws IllegalArgumentException if not positive */
    public Builder attemptTimeout(Duration d) {
      this.attemptTimeout = SettingRules.positive("attempt-timeout", d);
      return this;
    }

    /** @throws IllegalArgumentException if not positive */
    public Builder deadline(Duration d) {
      this.deadline = SettingRules.positive("deadline", d);
      return this;
    }

    /** @throws IllegalArgumentException if not in [1, 1000] */
    public Builder maxAttempts(int n) {
      this.maxAttempts = SettingRules.inRange("max-attempts", n, 1, 1000);
      return this;
    }

    /**
     * @throws IllegalArgumentException if not in [200 ms, 1 h] (200 ms is the client's base delay,
     *     which the cap may not undercut)
     */
    public Builder maxDelay(Duration d) {
      this.maxDelay = SettingRules.inRange("max-delay", d,
          dev.oncely.client.RetryPolicy.DEFAULT_BASE_DELAY, Duration.ofHours(1));
      return this;
    }

    /** Any value. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Whether the standard retry budget applies; default false (unlimited). */
    public Builder retryBudget(boolean on) {
      this.retryBudget = on;
      return this;
    }

    /** Whether to drive through the interceptor (plain OkHttp, tagged requests); default false. */
    public Builder interceptor(boolean on) {
      this.interceptor = on;
      return this;
    }

    /**
     * The JSON Pointer (RFC 6901) to the string or number in a {@code 202} body that names its
     * status resource, for example {@code /id}; goes with {@link #statusUrlTemplate(String)}.
     *
     * @throws IllegalArgumentException if it is not a JSON Pointer
     */
    public Builder statusUrlPointer(String pointer) {
      this.statusUrlPointer = StatusUrlFromBody.checkPointer(pointer);
      return this;
    }

    /**
     * The status URL with {@code {}} where the value at {@link #statusUrlPointer(String)} goes,
     * for example {@code /payments/{}}, resolved against the target; the value is percent-encoded
     * as one path segment, so it can neither leave the target's origin nor change the path around
     * it.
     *
     * @throws IllegalArgumentException if it is not {@link LoadSettings#STATUS_URL_TEMPLATE_RULE
     *     an absolute path with the placeholder in its path part} (a template starting with
     *     {@code //}, which names a host, or with the placeholder in the query is refused)
     */
    public Builder statusUrlTemplate(String template) {
      this.statusUrlTemplate = StatusUrlFromBody.checkTemplate(template);
      return this;
    }

    /**
     * @throws IllegalStateException if the target or store directory is missing, or only one of
     *     the status URL pointer and template is set
     */
    public LoadSettings build() {
      if (target == null) {
        throw new IllegalStateException("target is required");
      }
      if (storeDir == null) {
        throw new IllegalStateException("store is required");
      }
      if ((statusUrlPointer == null) != (statusUrlTemplate == null)) {
        throw new IllegalStateException(
            "status-url-pointer and status-url-template go together: set both or neither");
      }
      return new LoadSettings(this);
    }
  }
}
