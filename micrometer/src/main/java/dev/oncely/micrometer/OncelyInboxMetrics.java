package dev.oncely.micrometer;

import dev.oncely.micrometer.internal.BoundedNames;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.inbox.InboxListener;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import dev.oncely.server.webhook.WebhookListener;
import dev.oncely.server.webhook.WebhookRefusedException;
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
 * Metrics of the inbox and the webhook receiver ({@code oncely-server}): an {@link InboxListener}
 * that counts what the inbox did with each message, a {@link WebhookListener} that counts every
 * refused delivery, and, once it {@link #watch watches} the {@link Inbox}, gauges of the messages
 * still unfinished. Pass it to {@code Inbox.Builder.listener} and {@code
 * WebhookReceiver.Builder.listener}, then call {@link #watch} with the built inbox (the Spring
 * Boot starter does all three when a {@code MeterRegistry} bean exists).
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>Name</th><th>Type</th><th>Tags</th><th>Value</th></tr>
 *   <tr><td>{@value #MESSAGES}</td><td>counter</td><td>kind, source</td><td>inbox events;
 *       {@code kind} is the {@link InboxEvent.Kind} in lower case: {@code accepted}, {@code
 *       duplicate}, {@code mismatch}, {@code started}, {@code handled}, {@code failed}, {@code
 *       taken_over}, {@code dead_lettered}, {@code replayed}, {@code fenced_out}, {@code
 *       no_handler}</td></tr>
 *   <tr><td>{@value #REFUSED}</td><td>counter</td><td>source, reason</td><td>deliveries refused
 *       before anything was stored; {@code reason} is the {@link WebhookRefusedException.Reason}
 *       in lower case: {@code missing_signature}, {@code malformed}, {@code missing_id}, {@code
 *       missing_timestamp}, {@code bad_signature}, {@code stale_timestamp}, {@code
 *       future_timestamp}</td></tr>
 *   <tr><td>{@value #UNFINISHED}</td><td>gauge</td><td>state</td><td>messages {@code queued},
 *       {@code processing} or {@code dead} (dead-lettered, waiting for an operator)</td></tr>
 *   <tr><td>{@value #OLDEST_QUEUED_AGE}</td><td>time gauge</td><td></td><td>seconds since the
 *       oldest queued message was first stored; 0 when none is queued</td></tr>
 *   <tr><td>{@value #REFRESH_FAILURES}</td><td>counter</td><td></td><td>gauge readings that
 *       failed because the store threw (the last reading is kept)</td></tr>
 * </table>
 *
 * <p>Alert on {@code oncely.inbox.unfinished{state="dead"} > 0} (an event no retry will handle)
 * and on a growing {@value #OLDEST_QUEUED_AGE} (workers that do not keep up, or a source without
 * a handler); {@code refused{reason="bad_signature"}} rising after a deploy is a wrong or rotated
 * secret.
 *
 * <p><b>Bounded cost.</b> The gauges read one {@link Inbox#listUnfinished()} and keep it for
 * {@link Builder#cacheFor} (5 s by default): scrapes within that time reuse the reading. The
 * listing runs on the scraping thread; no thread of its own is started.
 *
 * <p><b>Bounded tags.</b> Never a message id, payload or secret: events carry the source and the
 * id's one-way hash, and the hash is not used. {@code source} is capped ({@link
 * Builder#maxSources}, 100 by default); later new names are reported as {@code other}.
 *
 * <p>Thread-safe. The registry holds the gauges' reference to this object strongly.
 */
public final class OncelyInboxMetrics implements InboxListener, WebhookListener {
  /** Counter of inbox events, by kind and source. */
  public static final String MESSAGES = "oncely.inbox.messages";
  /** Counter of refused webhook deliveries, by source and reason. */
  public static final String REFUSED = "oncely.webhooks.refused";
  /** Gauge of unfinished inbox messages, by state. */
  public static final String UNFINISHED = "oncely.inbox.unfinished";
  /** Time gauge of the oldest queued message's age. */
  public static final String OLDEST_QUEUED_AGE = "oncely.inbox.oldest_queued.age";
  /** Counter of gauge readings that failed because the store threw. */
  public static final String REFRESH_FAILURES = "oncely.inbox.gauges.refresh_failures";
  /** How long one listing of the unfinished messages is reused by default. */
  public static final Duration DEFAULT_CACHE = Duration.ofSeconds(5);

  private static final System.Logger LOG = System.getLogger(OncelyInboxMetrics.class.getName());
  private static final InboxState[] UNFINISHED_STATES = {InboxState.QUEUED,
      InboxState.PROCESSING, InboxState.DEAD};

  private final MeterRegistry registry;
  private final Tags common;
  private final BoundedNames sources;
  private final Clock clock;
  private final long cacheMillis;
  private @Nullable Inbox inbox;
  private @Nullable Counter failures;
  private volatile Reading reading = Reading.NONE;

  private OncelyInboxMetrics(Builder b) {
    this.registry = b.registry;
    this.common = b.common;
    this.sources = new BoundedNames(b.maxSources);
    this.clock = b.clock;
    this.cacheMillis = b.cacheFor.toMillis();
  }

  /**
   * Starts a builder that records into {@code registry}.
   *
   * @param registry where the meters are registered
   * @return a builder with no common tags, the default cap and a 5 s reading cache
   * @throws NullPointerException if {@code registry} is null
   */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(registry);
  }

  /**
   * Registers the gauges of {@code inbox}'s unfinished messages. The inbox is built with this
   * object as its listener, so it can only be given once it exists.
   *
   * @param inbox the inbox to read
   * @return this object
   * @throws IllegalStateException if it watches another inbox already
   * @throws NullPointerException if {@code inbox} is null
   */
  public synchronized OncelyInboxMetrics watch(Inbox inbox) {
    Objects.requireNonNull(inbox, "inbox");
    if (this.inbox != null) {
      if (this.inbox == inbox) {
        return this;
      }
      throw new IllegalStateException("these metrics watch another inbox already; build one"
          + " OncelyInboxMetrics per inbox");
    }
    this.inbox = inbox;
    this.failures = Counter.builder(REFRESH_FAILURES).tags(common)
        .description("Inbox gauge readings that failed (the last reading is kept)")
        .register(registry);
    for (InboxState state : UNFINISHED_STATES) {
      Gauge.builder(UNFINISHED, this, m -> m.current().count(state))
          .description("Inbox messages not yet handled, by state")
          .tags(common.and(Tag.of("state", state.name().toLowerCase(Locale.ROOT))))
          .strongReference(true)
          .register(registry);
    }
    TimeGauge.builder(OLDEST_QUEUED_AGE, this, TimeUnit.SECONDS, m -> m.oldestQueuedAgeSeconds())
        .description("Age of the oldest queued inbox message")
        .tags(common)
        .strongReference(true)
        .register(registry);
    return this;
  }

  /**
   * Counts {@code event}. Never throws for a well-formed event.
   *
   * @param event what the inbox did
   */
  @Override
  public void onEvent(InboxEvent event) {
    Counter.builder(MESSAGES)
        .description("What the inbox did with messages, by kind")
        .tags(common)
        .tags("kind", event.kind().name().toLowerCase(Locale.ROOT),
            "source", sources.admit(event.source()))
        .register(registry)
        .increment();
  }

  /**
   * Counts a refused delivery. Never throws for well-formed arguments.
   *
   * @param source the source the delivery was posted to
   * @param reason why it was refused
   */
  @Override
  public void refused(String source, WebhookRefusedException.Reason reason) {
    Counter.builder(REFUSED)
        .description("Webhook deliveries refused before anything was stored, by reason")
        .tags(common)
        .tags("source", sources.admit(source), "reason", reason.name().toLowerCase(Locale.ROOT))
        .register(registry)
        .increment();
  }

  /**
   * Reads the inbox now, whatever the cache holds (the gauges then show this reading). If the
   * store throws, the last reading stays and {@value #REFRESH_FAILURES} is incremented; nothing is
   * thrown. Does nothing before {@link #watch}.
   */
  public void refresh() {
    synchronized (this) {
      if (inbox != null) {
        read(inbox, clock.millis());
      }
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
      return fresh(r, now) ? r : read(Objects.requireNonNull(inbox), now);
    }
  }

  private boolean fresh(Reading r, long now) {
    long age = now - r.takenAtMillis;
    return r != Reading.NONE && age >= 0 && age < cacheMillis;
  }

  private Reading read(Inbox watched, long now) {
    try {
      List<InboxMessage> unfinished = watched.listUnfinished();
      int[] counts = new int[InboxState.values().length];
      Instant oldestQueued = null;
      for (InboxMessage m : unfinished) {
        counts[m.state().ordinal()]++;
        if (m.state() == InboxState.QUEUED
            && (oldestQueued == null || m.receivedAt().isBefore(oldestQueued))) {
          oldestQueued = m.receivedAt();
        }
      }
      reading = new Reading(counts, oldestQueued, now);
    } catch (RuntimeException e) {
      Objects.requireNonNull(failures).increment();
      // Keep the last counts, but only until the next scrape after the cache time: a failing
      // store is retried at that pace, not on every scrape.
      Reading last = reading;
      reading = new Reading(last.counts, last.oldestQueued, now);
      LOG.log(System.Logger.Level.WARNING, "inbox gauges kept the last reading: "
          + e.getClass().getName());
    }
    return reading;
  }

  private double oldestQueuedAgeSeconds() {
    Instant oldest = current().oldestQueued;
    if (oldest == null) {
      return 0;
    }
    return Math.max(0, Duration.between(oldest, clock.instant()).toMillis() / 1000.0);
  }

  /** One listing's counts by state and when it was taken. */
  private static final class Reading {
    static final Reading NONE = new Reading(new int[InboxState.values().length], null,
        Long.MIN_VALUE);
    final int[] counts;
    final @Nullable Instant oldestQueued;
    final long takenAtMillis;

    Reading(int[] counts, @Nullable Instant oldestQueued, long takenAtMillis) {
      this.counts = counts;
      this.oldestQueued = oldestQueued;
      this.takenAtMillis = takenAtMillis;
    }

    double count(InboxState state) {
      return counts[state.ordinal()];
    }
  }

  /** Configures {@link OncelyInboxMetrics}. Not thread-safe; build once and share the result. */
  public static final class Builder {
    private final MeterRegistry registry;
    private Tags common = Tags.empty();
    private int maxSources = 100;
    private Clock clock = Clock.systemUTC();
    private Duration cacheFor = DEFAULT_CACHE;

    private Builder(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * Sets how long one listing of the unfinished messages serves the gauges (default 5 s); zero
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
     * UTC); give the inbox's clock.
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
     * Adds a tag to every meter, for example the application's name. Never a message id.
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
     * Caps the distinct {@code source} tag values (default 100); later new names become {@code
     * other}.
     *
     * @param max the cap, at least 1
     * @return this builder
     * @throws IllegalArgumentException if {@code max} is below 1
     */
    public Builder maxSources(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxSources must be at least 1, was " + max);
      }
      this.maxSources = max;
      return this;
    }

    /**
     * Builds the metrics; counters appear as events arrive, gauges once {@link
     * OncelyInboxMetrics#watch} is given the inbox.
     *
     * @return the listener
     */
    public OncelyInboxMetrics build() {
      return new OncelyInboxMetrics(this);
    }
  }
}
