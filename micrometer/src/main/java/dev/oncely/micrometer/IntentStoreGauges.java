package dev.oncely.micrometer;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Gauges computed from an {@link IntentStore}: how many intents are unfinished (by state), the
 * size of the reconciliation backlog and the age of the oldest unfinished intent.
 *
 * <p><b>Bounded cost.</b> A scrape never touches the store: the gauges read a snapshot that one
 * daemon thread refreshes every {@link Builder#refreshEvery refresh interval} (30 s by default)
 * with a single {@link IntentStore#listUnfinished()}, which durable engines answer from their index
 * of unfinished records. Call {@link #refresh()} to take a snapshot at a moment of your choosing
 * (with {@code refreshEvery(Duration.ZERO)} no thread is started and only {@code refresh()}
 * updates the gauges). A failing store keeps the last snapshot and counts
 * {@value #REFRESH_FAILURES}.
 *
 * <table>
 *   <caption>Gauges</caption>
 *   <tr><th>Name</th><th>Tags</th><th>Value</th></tr>
 *   <tr><td>{@value #UNFINISHED}</td><td>state</td><td>records in each non-terminal state
 *       ({@code new}, {@code in_flight}, {@code pending}, {@code needs_reconciliation})</td></tr>
 *   <tr><td>{@value #RECONCILIATION_BACKLOG}</td><td></td><td>records that need reconciliation</td></tr>
 *   <tr><td>{@value #OLDEST_UNFINISHED_AGE}</td><td></td><td>seconds since the oldest unfinished
 *       record was created; 0 when none</td></tr>
 * </table>
 *
 * <p>Thread-safe. {@link #close()} stops the refresh thread; it does not close the store.
 */
public final class IntentStoreGauges implements MeterBinder, AutoCloseable {
  /** Gauge of unfinished records, by state. */
  public static final String UNFINISHED = "oncely.intents.unfinished";
  /** Gauge of records that need reconciliation. */
  public static final String RECONCILIATION_BACKLOG = "oncely.reconciliation.backlog";
  /** Time gauge of the oldest unfinished record's age. */
  public static final String OLDEST_UNFINISHED_AGE = "oncely.intents.oldest_unfinished.age";
  /** Counter of snapshots that failed because the store threw. */
  public static final String REFRESH_FAILURES = "oncely.intents.gauges.refresh_failures";
  /** The default time between two snapshots. */
  public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(30);

  private static final System.Logger LOG = System.getLogger(IntentStoreGauges.class.getName());

  private final IntentStore store;
  private final Clock clock;
  private final Duration refreshEvery;
  private final Tags common;
  private volatile Snapshot snapshot = Snapshot.EMPTY;
  private volatile @Nullable Counter failures;
  private @Nullable ScheduledExecutorService scheduler;

  private IntentStoreGauges(Builder b) {
    this.store = b.store;
    this.clock = b.clock;
    this.refreshEvery = b.refreshEvery;
    this.common = b.common;
  }

  /**
   * Starts a builder for gauges over {@code store}.
   *
   * @param store the store to read; the same instance the client writes
   * @return a builder with a 30 s refresh interval, the system clock and no common tags
   * @throws NullPointerException if {@code store} is null
   */
  public static Builder builder(IntentStore store) {
    return new Builder(store);
  }

  /**
   * Registers the gauges, takes a first snapshot and, unless the refresh interval is zero, starts
   * the refresh thread. Bind once.
   *
   * @param registry where the gauges are registered
   * @throws IllegalStateException if already bound
   */
  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    if (failures != null) {
      throw new IllegalStateException("already bound to a registry");
    }
    failures = Counter.builder(REFRESH_FAILURES).tags(common)
        .description("Store gauge snapshots that failed (the last snapshot is kept)")
        .register(registry);
    for (IntentState state : IntentState.values()) {
      if (!state.isTerminal()) {
        Gauge.builder(UNFINISHED, this, g -> g.snapshot.count(state))
            .description("Unfinished intent records, by state")
            .tags(common.and(Tag.of("state", state.name().toLowerCase(Locale.ROOT))))
            .register(registry);
      }
    }
    Gauge.builder(RECONCILIATION_BACKLOG, this,
            g -> g.snapshot.count(IntentState.NEEDS_RECONCILIATION))
        .description("Intent records that need reconciliation")
        .tags(common)
        .register(registry);
    TimeGauge.builder(OLDEST_UNFINISHED_AGE, this, TimeUnit.SECONDS, g -> g.oldestAgeSeconds())
        .description("Age of the oldest unfinished intent record")
        .tags(common)
        .register(registry);
    refresh();
    if (!refreshEvery.isZero()) {
      ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "oncely-store-gauges");
        t.setDaemon(true);
        return t;
      });
      long millis = refreshEvery.toMillis();
      s.scheduleWithFixedDelay(this::refresh, millis, millis, TimeUnit.MILLISECONDS);
      scheduler = s;
    }
  }

  /**
   * Takes a snapshot now: one {@link IntentStore#listUnfinished()}. If the store throws, the last
   * snapshot stays and {@value #REFRESH_FAILURES} is incremented; nothing is thrown.
   */
  public void refresh() {
    try {
      List<IntentRecord> unfinished = store.listUnfinished();
      Map<IntentState, Integer> counts = new EnumMap<>(IntentState.class);
      Instant oldest = null;
      for (IntentRecord r : unfinished) {
        counts.merge(r.state(), 1, Integer::sum);
        if (oldest == null || r.createdAt().isBefore(oldest)) {
          oldest = r.createdAt();
        }
      }
      snapshot = new Snapshot(counts, oldest);
    } catch (RuntimeException e) {
      Counter c = failures;
      if (c != null) {
        c.increment();
      }
      LOG.log(System.Logger.Level.WARNING, "store gauges kept the last snapshot: " + e.getClass().getName());
    }
  }

  private double oldestAgeSeconds() {
    Instant oldest = snapshot.oldest;
    if (oldest == null) {
      return 0;
    }
    return Math.max(0, Duration.between(oldest, clock.instant()).toMillis() / 1000.0);
  }

  /** Stops the refresh thread. Idempotent; the gauges keep their last values. */
  @Override
  public synchronized void close() {
    if (scheduler != null) {
      scheduler.shutdownNow();
      scheduler = null;
    }
  }

  /** Counts and the oldest creation time of one listing. */
  private static final class Snapshot {
    static final Snapshot EMPTY = new Snapshot(Map.of(), null);
    final Map<IntentState, Integer> counts;
    final @Nullable Instant oldest;

    Snapshot(Map<IntentState, Integer> counts, @Nullable Instant oldest) {
      this.counts = counts;
      this.oldest = oldest;
    }

    double count(IntentState state) {
      return counts.getOrDefault(state, 0);
    }
  }

  /** Configures {@link IntentStoreGauges}. Not thread-safe; build once. */
  public static final class Builder {
    private final IntentStore store;
    private Clock clock = Clock.systemUTC();
    private Duration refreshEvery = DEFAULT_REFRESH;
    private Tags common = Tags.empty();

    private Builder(IntentStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * Sets the time between two snapshots (default 30 s); {@link Duration#ZERO} starts no thread.
     *
     * @param interval the interval, zero or at least one millisecond
     * @return this builder
     * @throws IllegalArgumentException if {@code interval} is negative or between 0 and 1 ms
     */
    public Builder refreshEvery(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.isNegative() || (!interval.isZero() && interval.toMillis() < 1)) {
        throw new IllegalArgumentException(
            "refreshEvery must be zero or at least 1 ms, was " + interval);
      }
      this.refreshEvery = interval;
      return this;
    }

    /**
     * Sets the clock ages are measured with (default: the system clock in UTC).
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
     * Adds a tag to every gauge, for example {@code store=sqlite}. Never a key, scope or business id.
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
     * Builds the gauges; they appear in a registry once {@link IntentStoreGauges#bindTo bound}.
     *
     * @return the gauges, not yet bound
     */
    public IntentStoreGauges build() {
      return new IntentStoreGauges(this);
    }
  }
}
