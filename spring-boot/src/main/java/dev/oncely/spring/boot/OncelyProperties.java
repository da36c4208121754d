package dev.oncely.spring.boot;

import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryPolicy;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code oncely.*} settings of the starter. Every default is the library's own (see {@link
 * RetryPolicy} and {@link RetryBudget}); an unset value leaves the library's default in place.
 * Replace a bean to configure what no property covers.
 */
@ConfigurationProperties(prefix = "oncely")
public class OncelyProperties {
  /** Whether the starter configures anything at all. */
  private boolean enabled = true;

  /**
   * Server dialect: how the key is sent and the answers are read (ietf, stripe or paypal).
   * A Dialect bean of the app's own replaces it.
   */
  private DialectName dialect = DialectName.IETF;

  /**
   * How long the server keeps keys; an intent that may have been delivered and is older than this
   * is never resent but goes to reconciliation. Default: the dialect's retention.
   */
  private @Nullable Duration keyRetention;

  /** Whether unfinished intents are driven again once the application is ready. */
  private boolean resumeOnStartup = true;

  /**
   * Whether a finished intent's record keeps its request body and headers, for audit. Default
   * false: it keeps a SHA-256 of the body, the fingerprint and the outcome, which is all a repeat
   * needs.
   */
  private boolean keepFinishedRequests;

  private final Store store = new Store();
  private final Retry retry = new Retry();
  private final Budget budget = new Budget();
  private final DueWork dueWork = new DueWork();
  private final Health health = new Health();
  private final RestClient restClient = new RestClient();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public DialectName getDialect() {
    return dialect;
  }

  public void setDialect(DialectName dialect) {
    this.dialect = dialect;
  }

  public @Nullable Duration getKeyRetention() {
    return keyRetention;
  }

  public void setKeyRetention(@Nullable Duration keyRetention) {
    this.keyRetention = keyRetention;
  }

  public boolean isKeepFinishedRequests() {
    return keepFinishedRequests;
  }

  public void setKeepFinishedRequests(boolean keepFinishedRequests) {
    this.keepFinishedRequests = keepFinishedRequests;
  }

  public boolean isResumeOnStartup() {
    return resumeOnStartup;
  }

  public void setResumeOnStartup(boolean resumeOnStartup) {
    this.resumeOnStartup = resumeOnStartup;
  }

  public Store getStore() {
    return store;
  }

  public Retry getRetry() {
    return retry;
  }

  public Budget getBudget() {
    return budget;
  }

  public DueWork getDueWork() {
    return dueWork;
  }

  public RestClient getRestClient() {
    return restClient;
  }

  public Health getHealth() {
    return health;
  }

  /** The server dialects a property can name. */
  public enum DialectName {
    /** The IETF draft: quoted key, 409 in progress, 422 mismatch. */
    IETF,
    /** Stripe: plain key, 409 in progress, 400 idempotency_error mismatch, replay marker. */
    STRIPE,
    /** PayPal: PayPal-Request-Id header. */
    PAYPAL
  }

  /** The store engines a property can name. */
  public enum Engine {
    /** MapDB file store (the default without a DataSource). */
    MAPDB,
    /** SQLite file store. */
    SQLITE,
    /** PostgreSQL on the application's DataSource (needs oncely-client-postgres). */
    POSTGRES,
    /** In memory: intents do not survive a restart. For tests only. */
    MEMORY
  }

  /** Where intents are recorded. */
  public static class Store {
    /**
     * Store engine. Default: postgres when the app has a DataSource and oncely-client-postgres is
     * on the classpath, mapdb otherwise.
     */
    private @Nullable Engine engine;

    /** File of the mapdb or sqlite store, relative to the working directory. */
    private Path path = Path.of("oncely", "intents.db");

    /**
     * Whether the postgres store applies missing schema versions at start-up (turn off when
     * Flyway or Liquibase runs Oncely's scripts).
     */
    private boolean migrate = true;

    /** How long a postgres lease on an intent lasts unless renewed. */
    private Duration lease = Duration.ofSeconds(30);

    public @Nullable Engine getEngine() {
      return engine;
    }

    public void setEngine(@Nullable Engine engine) {
      this.engine = engine;
    }

    public Path getPath() {
      return path;
    }

    public void setPath(Path path) {
      this.path = path;
    }

    public boolean isMigrate() {
      return migrate;
    }

    public void setMigrate(boolean migrate) {
      this.migrate = migrate;
    }

    public Duration getLease() {
      return lease;
    }

    public void setLease(Duration lease) {
      this.lease = lease;
    }
  }

  /** The retry policy of the client and the interceptor. */
  public static class Retry {
    /** Most attempts of one drive, the first included. */
    private int maxAttempts = RetryPolicy.DEFAULT_MAX_ATTEMPTS;

    /** Base of the full-jitter exponential backoff. */
    private Duration baseDelay = RetryPolicy.DEFAULT_BASE_DELAY;

    /** Cap of one backoff wait. */
    private Duration maxDelay = RetryPolicy.DEFAULT_MAX_DELAY;

    /** Time one drive may take before it ends pending. */
    private Duration deadline = RetryPolicy.DEFAULT_DEADLINE;

    /** Connect, read and write timeout of one attempt. */
    private Duration attemptTimeout = RetryPolicy.DEFAULT_ATTEMPT_TIMEOUT;

    public int getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    public Duration getBaseDelay() {
      return baseDelay;
    }

    public void setBaseDelay(Duration baseDelay) {
      this.baseDelay = baseDelay;
    }

    public Duration getMaxDelay() {
      return maxDelay;
    }

    public void setMaxDelay(Duration maxDelay) {
      this.maxDelay = maxDelay;
    }

    public Duration getDeadline() {
      return deadline;
    }

    public void setDeadline(Duration deadline) {
      this.deadline = deadline;
    }

    public Duration getAttemptTimeout() {
      return attemptTimeout;
    }

    public void setAttemptTimeout(Duration attemptTimeout) {
      this.attemptTimeout = attemptTimeout;
    }
  }

  /** The retry budget (a token bucket per host) shared by the client and the interceptor. */
  public static class Budget {
    /** Tokens in the bucket. */
    private int capacity = RetryBudget.DEFAULT_CAPACITY;

    /** Tokens one retry after a failure costs. */
    private int retryCost = RetryBudget.DEFAULT_RETRY_COST;

    /** Tokens a success gives back. */
    private int successRefund = RetryBudget.DEFAULT_SUCCESS_REFUND;

    /** Tokens the bucket regains each second by itself (0: only successes refill it). */
    private double refillPerSecond = RetryBudget.DEFAULT_REFILL_PER_SECOND;

    public int getCapacity() {
      return capacity;
    }

    public void setCapacity(int capacity) {
      this.capacity = capacity;
    }

    public int getRetryCost() {
      return retryCost;
    }

    public void setRetryCost(int retryCost) {
      this.retryCost = retryCost;
    }

    public int getSuccessRefund() {
      return successRefund;
    }

    public void setSuccessRefund(int successRefund) {
      this.successRefund = successRefund;
    }

    public double getRefillPerSecond() {
      return refillPerSecond;
    }

    public void setRefillPerSecond(double refillPerSecond) {
      this.refillPerSecond = refillPerSecond;
    }
  }

  /** Boot's {@code RestClient.Builder} on the Oncely request factory. */
  public static class RestClient {
    /**
     * Whether Boot's RestClient.Builder sends through the Oncely request factory (a
     * RestClientCustomizer): POST and PATCH calls of every RestClient built from it become
     * idempotent intents.
     */
    private boolean enabled = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }

  /** The due-work scheduler that drives unfinished intents again at their due time. */
  public static class DueWork {
    /** Whether the scheduler runs while the context is running. */
    private boolean enabled = true;

    /** Time between two ticks, before jitter. */
    private Duration interval = Duration.ofSeconds(1);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }
  }

  /** When the Actuator health indicator "oncely" reports DOWN. */
  public static class Health {
    /** Most intents that may need reconciliation before the health is DOWN. */
    private int maxNeedsReconciliation = 0;

    /** Longest an intent may stay unfinished (new, in flight, pending) before the health is DOWN. */
    private Duration maxPendingAge = Duration.ofHours(1);

    public int getMaxNeedsReconciliation() {
      return maxNeedsReconciliation;
    }

    public void setMaxNeedsReconciliation(int maxNeedsReconciliation) {
      this.maxNeedsReconciliation = maxNeedsReconciliation;
    }

    public Duration getMaxPendingAge() {
      return maxPendingAge;
    }

    public void setMaxPendingAge(Duration maxPendingAge) {
      this.maxPendingAge = maxPendingAge;
    }
  }
}
