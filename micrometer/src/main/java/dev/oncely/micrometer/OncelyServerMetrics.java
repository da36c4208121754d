package dev.oncely.micrometer;

import dev.oncely.micrometer.internal.BoundedNames;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptEvent;
import dev.oncely.server.ReceiptListener;
import dev.oncely.server.ReceiptState;
import dev.oncely.server.ReceiptStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Metrics of the server half ({@code oncely-server}): a {@link ReceiptListener} that counts what
 * the idempotent endpoints did with each request, and, when it is given the {@link ReceiptStore},
 * gauges of the receipts still unfinished. Pass it to {@code IdempotentEndpoints.Builder.listener}
 * (the Spring Boot starter does so when a {@code MeterRegistry} bean exists).
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>Name</th><th>Type</th><th>Tags</th><th>Value</th></tr>
 *   <tr><td>{@value #RECEIPTS}</td><td>counter</td><td>kind, operation</td><td>receipt events;
 *       {@code kind} is the {@link ReceiptEvent.Kind} in lower case: {@code reserved},
 *       {@code completed}, {@code replayed}, {@code mismatch}, {@code in_progress},
 *       {@code pending_answered}, {@code taken_over}, {@code fenced_out}, {@code released},
 *       {@code pending}, {@code recovered}</td></tr>
 *   <tr><td>{@value #UNFINISHED}</td><td>gauge</td><td>state</td><td>receipts {@code processing}
 *       or {@code pending}</td></tr>
 *   <tr><td>{@value #OLDEST_PENDING_AGE}</td><td>time gauge</td><td></td><td>seconds since the
 *       oldest pending receipt's request first arrived; 0 when none is pending</td></tr>
 *   <tr><td>{@value #REFRESH_FAILURES}</td><td>counter</td><td></td><td>gauge readings that
 *       failed because the store threw (the last reading is kept)</td></tr>
 * </table>
 *
 * <p><b>Bounded cost.</b> The gauges read one {@link ReceiptStore#listUnfinished()} and keep it
 * for {@link Builder#cacheFor} (5 s by default): scrapes within that time reuse the reading, so
 * a registry scraped often, or by several scrapers, lists the receipts at most once per interval.
 * The listing runs on the scraping thread; no thread of its own is started.
 *
 * <p><b>Bounded tags.</b> Never a key, scope or payload: events carry only the operation and the
 * key's safe hash, and the hash is not used. {@code operation} is capped ({@link
 * Builder#maxOperations}, 100 by default); later new names are reported as {@code other}.
 *
 * <p>Thread-safe. The registry holds the gauges' reference to this object strongly.
 */
public final class OncelyServerMetrics implements ReceiptListener {
  /** Counter of receipt events, by kind and operation. */
  public static final String RECEIPTS = "oncely.server.receipts";
  /** Gauge of unfinished receipts, by state. */
  public static final String UNFINISHED = "oncely.server.receipts.unfinished";
  /** Time gauge of the oldest pending receipt's age. */
  public static final String OLDEST_PENDING_AGE = "oncely.server.receipts.oldest_pending.age";
  /** Counter of gauge readings that failed because the store threw. */
  public static final String REFRESH_FAILURES = "oncely.server.receipts.gauges.refresh_failures";
  /** How long one listing of the unfinished receipts is reused by default. */
  public static final Duration DEFAULT_CACHE = Duration.ofSeconds(5);

  private static final System.Logger LOG =
      System.getLogger(OncelyServerMetrics.class.getName());

  private final MeterRegistry registry;
  private final Tags common;
  private final BoundedNames operations;
  private final @Nullable ReceiptStore receipts;
  private final Clock clock;
  private final long cacheMillis;
  private final @Nullable Counter failures;
  private volatile Reading reading = Reading.NONE;

  private OncelyServerMetrics(Builder b) {
    this.registry = b.registry;
    this.common = b.common;
    this.operations = new BoundedNames(b.maxOperations);
    this.receipts = b.receipts;
    this.clock = b.clock;
    this.cacheMillis = b.cacheFor.toMillis();
    this.failures = receipts == null ? null : Counter.builder(REFRESH_FAILURES).tags(common)
        .description("Receipt gauge readings that failed (the last reading is kept)")
        .register(registry);
    if (receipts != null) {
      for (ReceiptState state : new ReceiptState[] {ReceiptState.PROCESSING,
          ReceiptState.PENDING}) {
        Gauge.builder(UNFINISHED, this, m -> m.current().count(state))
            .description("Receipts whose request has not finished, by state")
            .tags(common.and(Tag.of("state", state.name().toLowerCase(Locale.ROOT))))
            .strongReference(true)
            .register(registry);
      }
      TimeGauge.builder(OLDEST_PENDING_AGE, this, TimeUnit.SECONDS,
              m -> m.oldestPendingAgeSeconds())
          .description("Age of the oldest pending receipt")
          .tags(common)
          .strongReference(true)
          .register(registry);
    }
  }

  /**
   * Starts a builder that records into {@code registry}.
   *
   * @param registry where the meters are registered
   * @return a builder without gauges (see {@link Builder#receipts}), no common tags, the default
   *     caps and a 5 s reading cache
   * @throws NullPointerException if {@code registry} is null
   */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(registry);
  }

  /**
   * Counts {@code event}. Never throws for a well-formed event.
   *
   * @param event what the endpoints did
   */
  @Override
  public void onEvent(ReceiptEvent event) {
    Counter.builder(RECEIPTS)
        .description("What the idempotent endpoints did with requests, by kind")
        .tags(common)
        .tags("kind", event.kind().name().toLowerCase(Locale.ROOT),
            "operation", operations.admit(event.operation()))
        .register(registry)
        .increment();
  }

  /**
   * Reads the receipts now, whatever the cache holds (the gauges then show this reading). If the
   * store throws, the last reading stays and {@value #REFRESH_FAILURES} is incremented; nothing is
   * thrown. Does nothing when the metrics have no store.
   */
  public void refresh() {
    ReceiptStore store = receipts;
    if (store == null) {
      return;
    }
    synchronized (this) {
      read(store, clock.millis());
    }
  }

  /** The reading the gauges show: the cached one while it is fresh, else a new one. */
  private Reading current() {
    long now = clock.millis();
    Reading r = reading;
    if (fresh(r, now)) {
      return r;
    }
    synchronized (this) {
      // Scrapes that waited here while another thread read the store use its reading.
      r = reading;
      return fresh(r, now) ? r : read(Objects.requireNonNull(receipts), now);
    }
  }

  private boolean fresh(Reading r, long now) {
    long age = now - r.takenAtMillis;
    return r != Reading.NONE && age >= 0 && age < cacheMillis;
  }

  private Reading read(ReceiptStore store, long now) {
    try {
      List<Receipt> unfinished = store.listUnfinished();
      int processing = 0;
      int pending = 0;
      Instant oldestPending = null;
      for (Receipt r : unfinished) {
        if (r.state() == ReceiptState.PROCESSING) {
          processing++;
        } else if (r.state() == ReceiptState.PENDING) {
          pending++;
          if (oldestPending == null || r.createdAt().isBefore(oldestPending)) {
            oldestPending = r.createdAt();
          }
        }
      }
      reading = new Reading(processing, pending, oldestPending, now);
    } catch (RuntimeException e) {
      Objects.requireNonNull(failures).increment();
      // Keep the last counts, but only until the next scrape after the cache time: a failing
      // store is retried at that pace, not on every scrape.
      Reading last = reading;
      reading = new Reading(last.processing, last.pending, last.oldestPending, now);
      LOG.log(System.Logger.Level.WARNING, "receipt gauges kept the last reading: "
          + e.getClass().getName());
    }
    return reading;
  }

  private double oldestPendingAgeSeconds() {
    Instant oldest = current().oldestPending;
    if (oldest == null) {
      return 0;
    }
    return Math.max(0, Duration.between(oldest, clock.instant()).toMillis() / 1000.0);
  }

  /** One listing's counts and when it was taken. */
  private static final class Reading {
    static final Reading NONE = new Reading(0, 0, null, Long.MIN_VALUE);
    final int processing;
    final int pending;
    final @Nullable Instant oldestPending;
    final long takenAtMillis;

    Reading(int processing, int pending, @Nullable Instant oldestPending, long takenAtMillis) {
      this.processing = processing;
      this.pending = pending;
      this.oldestPending = oldestPending;
      this.takenAtMillis = takenAtMillis;
    }

    double count(ReceiptState state) {
      return state == ReceiptState.PROCESSING ? processing : pending;
    }
  }

  /** Configures {@link OncelyServerMetrics}. Not thread-safe; build once and share the result. */
  public static final class Builder {
    private final MeterRegistry registry;
    private Tags common = Tags.empty();
    private int maxOperations = 100;
    private @Nullable ReceiptStore receipts;
    private Clock clock = Clock.systemUTC();
    private Duration cacheFor = DEFAULT_CACHE;

    private Builder(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * Adds the gauges of {@code receipts}, the store the endpoints keep their receipts in.
     *
     * @param receipts the receipt store to read
     * @return this builder
     * @throws NullPointerException if {@code receipts} is null
     */
    public Builder receipts(ReceiptStore receipts) {
      this.receipts = Objects.requireNonNull(receipts, "receipts");
      return this;
    }

    /**
     * Sets how long one listing of the unfinished receipts serves the gauges (default 5 s); zero
     * lists them on every gauge read.
     *
     * @param cacheFor the time a reading is reused, zero or more
     * @return this builder
     * @throws IllegalArgumentException if {@code cacheFor} is negative
     * @throws NullPointerException if {@code cacheFor} is null
     */
    public Builder cacheFor(Duration cacheFor) {
      Objects.requireNonNull(cacheFor, "cacheFor");
      if (cacheFor.isNegative()) {
        throw new IllegalArgumentException("cacheFor must be zero or more, was " + cacheFor);
      }
      this.cacheFor = cacheFor;
      return this;
    }

    /**
     * Sets the clock ages and the reading cache are measured with (default: the system clock in
     * UTC).
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Adds a tag to every meter, for example the application's name. Never a key or a scope.
     *
     * @param key the tag key
     * @param value the tag value
     * @return this builder
     * @throws NullPointerException if {@code key} or {@code value} is null
     */
    public Builder tag(String key, String value) {
      common = common.and(Tag.of(key, value));
      return this;
    }

    /**
     * Caps the distinct {@code operation} tag values (default 100); later new names become
     * {@code other}.
     *
     * @param max the cap, at least 1
     * @return this builder
     * @throws IllegalArgumentException if {@code max} is below 1
     */
    public Builder maxOperations(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxOperations must be at least 1, was " + max);
      }
      this.maxOperations = max;
      return this;
    }

    /**
     * Builds the metrics and registers the gauges (when a receipt store was given); counters
     * appear as events arrive.
     *
     * @return the listener
     */
    public OncelyServerMetrics build() {
      return new OncelyServerMetrics(this);
    }
  }
}
