package dev.oncely.micrometer;

import dev.oncely.client.IntentId;
import dev.oncely.client.PendingReason;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.micrometer.internal.BoundedNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * An {@link IntentListener} that turns the event stream into Micrometer meters. Pass it to
 * {@code IdempotentClient.Builder.listener} or {@code IdempotencyInterceptor.Builder.listener}
 * (combine it with others through {@link IntentListener#all}).
 *
 * <p>Meters (every one also carries the {@linkplain Builder#tag common tags}, for example
 * {@code dialect}):
 * <table>
 *   <caption>Meters recorded from events</caption>
 *   <tr><th>Name</th><th>Type</th><th>Tags</th><th>Counts</th></tr>
 *   <tr><td>{@value #RECORDED}</td><td>counter</td><td>operation</td>
 *       <td>intents whose record was created durably (before their first send)</td></tr>
 *   <tr><td>{@value #ATTEMPTS}</td><td>counter</td><td>operation, host, kind</td>
 *       <td>requests sent; {@code kind} is {@code send} or {@code poll} (of a 202 status URL)</td></tr>
 *   <tr><td>{@value #ATTEMPT_DURATION}</td><td>timer</td><td>operation, host, outcome</td>
 *       <td>attempt latency; {@code outcome} is the status class ({@code 2xx} ... {@code 5xx})
 *       or {@code no_answer}</td></tr>
 *   <tr><td>{@value #RETRIES}</td><td>counter</td><td>operation, host, cause</td>
 *       <td>retries scheduled; {@code cause} is {@code no_answer}, {@code accepted} (202),
 *       {@code in_progress} (409), {@code status_4xx}/{@code status_5xx} or
 *       {@code stored_wait} (a wait owed from before a restart)</td></tr>
 *   <tr><td>{@value #INTENTS}</td><td>counter</td><td>operation, outcome, reason</td>
 *       <td>drives that ended; {@code outcome} is {@code completed}, {@code rejected},
 *       {@code key_conflict}, {@code pending} or {@code needs_reconciliation};
 *       {@code reason} is the {@link PendingReason} of a pending drive, else {@code none}</td></tr>
 *   <tr><td>{@value #ACCEPTED}</td><td>counter</td><td>operation</td><td>{@code 202 Accepted}
 *       answers</td></tr>
 *   <tr><td>{@value #IN_PROGRESS}</td><td>counter</td><td>operation, status</td><td>"still in
 *       progress" answers (IETF {@code 409}) the client waited on</td></tr>
 *   <tr><td>{@value #PAYLOAD_MISMATCHES}</td><td>counter</td><td>operation</td><td>answers saying
 *       the key was used with another payload</td></tr>
 *   <tr><td>{@value #BUDGET_EXHAUSTED}</td><td>counter</td><td>operation, host</td><td>retries
 *       refused by an empty retry budget</td></tr>
 *   <tr><td>{@value #MALFORMED_RETRY_AFTER}</td><td>counter</td><td>operation</td><td>ignored,
 *       unparsable {@code Retry-After} values</td></tr>
 * </table>
 *
 * <p><b>Bounded tags.</b> No meter is ever tagged with a key, a scope value, a business id, a URL
 * or a payload. {@code operation} and {@code host} are capped ({@link Builder#maxOperations},
 * {@link Builder#maxHosts}, 100 and 50 by default): once that many distinct values were seen, new
 * ones are reported as {@code other}, so an operation name built from a URL path with ids in it
 * cannot grow the registry without end.
 *
 * <p>Thread-safe. Per intent it remembers the host and the last answer between events so that
 * retries and attempt timings can be tagged; that memory is dropped at the end of each drive and
 * capped at {@value #MAX_TRACKED} intents.
 */
public final class OncelyMetrics implements IntentListener {
  /** Counter of intents whose record was created durably. */
  public static final String RECORDED = "oncely.intents.recorded";
  /** Counter of attempts sent. */
  public static final String ATTEMPTS = "oncely.attempts";
  /** Timer of attempt latency. */
  public static final String ATTEMPT_DURATION = "oncely.attempt.duration";
  /** Counter of retries scheduled. */
  public static final String RETRIES = "oncely.retries";
  /** Counter of drives that ended, by outcome. */
  public static final String INTENTS = "oncely.intents";
  /** Counter of {@code 202 Accepted} answers. */
  public static final String ACCEPTED = "oncely.accepted";
  /** Counter of "in progress" answers. */
  public static final String IN_PROGRESS = "oncely.in_progress";
  /** Counter of payload mismatch answers. */
  public static final String PAYLOAD_MISMATCHES = "oncely.payload_mismatches";
  /** Counter of retries refused by the retry budget. */
  public static final String BUDGET_EXHAUSTED = "oncely.retry_budget.exhausted";
  /** Counter of ignored {@code Retry-After} values. */
  public static final String MALFORMED_RETRY_AFTER = "oncely.retry_after.malformed";
  /** How many intents' host and last answer are remembered at most between events. */
  public static final int MAX_TRACKED = 10_000;

  private final MeterRegistry registry;
  private final Tags common;
  private final BoundedNames operations;
  private final BoundedNames hosts;
  private final Map<IntentId, Track> tracks = new ConcurrentHashMap<>();

  private OncelyMetrics(Builder b) {
    this.registry = b.registry;
    this.common = b.common;
    this.operations = new BoundedNames(b.maxOperations);
    this.hosts = new BoundedNames(b.maxHosts);
  }

  /**
   * Starts a builder that records into {@code registry}.
   *
   * @param registry where the meters are registered
   * @return a builder with no common tags and the default caps
   * @throws NullPointerException if {@code registry} is null
   */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(registry);
  }

  /**
   * Records into {@code registry} with no common tags and the default caps.
   *
   * @param registry where the meters are registered
   * @return the listener
   * @throws NullPointerException if {@code registry} is null
   */
  public static OncelyMetrics create(MeterRegistry registry) {
    return builder(registry).build();
  }

  @Override
  public void onEvent(IntentEvent event) {
    String operation = operations.admit(event.id().operation());
    if (event instanceof IntentEvent.AttemptStarted e) {
      String host = hosts.admit(e.host());
      track(e.id()).host = host;
      counter(ATTEMPTS, Tags.of("operation", operation, "host", host,
          "kind", e.poll() ? "poll" : "send")).increment();
    } else if (event instanceof IntentEvent.AttemptEnded e) {
      Track t = track(e.id());
      String outcome = e.status() < 0 ? "no_answer" : (e.status() / 100) + "xx";
      t.signal = e.status() < 0 ? "no_answer" : "status_" + outcome;
      Timer.builder(ATTEMPT_DURATION)
          .description("Latency of one attempt, from send to answer or failure")
          .tags(common)
          .tags("operation", operation, "host", t.host, "outcome", outcome)
          .register(registry)
          .record(e.elapsed());
    } else if (event instanceof IntentEvent.RetryScheduled e) {
      Track t = track(e.id());
      counter(RETRIES, Tags.of("operation", operation, "host", t.host, "cause", t.signal))
          .increment();
    } else if (event instanceof IntentEvent.Accepted e) {
      track(e.id()).signal = "accepted";
      counter(ACCEPTED, Tags.of("operation", operation)).increment();
    } else if (event instanceof IntentEvent.InProgress e) {
      track(e.id()).signal = "in_progress";
      counter(IN_PROGRESS, Tags.of("operation", operation, "status", Integer.toString(e.status())))
          .increment();
    } else if (event instanceof IntentEvent.PayloadMismatch e) {
      counter(PAYLOAD_MISMATCHES, Tags.of("operation", operation)).increment();
      ended(e.id(), operation, "key_conflict", null);
    } else if (event instanceof IntentEvent.Completed e) {
      ended(e.id(), operation, "completed", null);
    } else if (event instanceof IntentEvent.Rejected e) {
      ended(e.id(), operation, "rejected", null);
    } else if (event instanceof IntentEvent.GaveUpUnknown e) {
      ended(e.id(), operation, "pending", e.reason());
    } else if (event instanceof IntentEvent.NeedsReconciliation e) {
      ended(e.id(), operation, "needs_reconciliation", null);
    } else if (event instanceof IntentEvent.BudgetExhausted e) {
      counter(BUDGET_EXHAUSTED, Tags.of("operation", operation, "host", hosts.admit(e.host())))
          .increment();
    } else if (event instanceof IntentEvent.Recorded) {
      counter(RECORDED, Tags.of("operation", operation)).increment();
    } else if (event instanceof IntentEvent.MalformedRetryAfter) {
      counter(MALFORMED_RETRY_AFTER, Tags.of("operation", operation)).increment();
    }
  }

  private void ended(IntentId id, String operation, String outcome,
      @Nullable PendingReason reason) {
    tracks.remove(id);
    counter(INTENTS, Tags.of("operation", operation, "outcome", outcome,
        "reason", reason == null ? "none" : reason.name().toLowerCase(Locale.ROOT))).increment();
  }

  private Track track(IntentId id) {
    Track t = tracks.get(id);
    if (t != null) {
      return t;
    }
    if (tracks.size() >= MAX_TRACKED) {
      // Drives that ended without a final event (a store failure) must not pile up forever.
      tracks.clear();
    }
    return tracks.computeIfAbsent(id, k -> new Track());
  }

  private Counter counter(String name, Tags tags) {
    return Counter.builder(name).tags(common).tags(tags).register(registry);
  }

  /** What is remembered about one intent between its events. */
  private static final class Track {
    volatile String host = "unknown";
    /** What the last answer was: the cause of a retry that follows it. */
    volatile String signal = "stored_wait";
  }

  /** Configures an {@link OncelyMetrics}. Not thread-safe; build once and share the result. */
  public static final class Builder {
    private final MeterRegistry registry;
    private Tags common = Tags.empty();
    private int maxOperations = 100;
    private int maxHosts = 50;

    private Builder(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * Adds a tag to every meter, for example the client's name. Never pass a key, scope value or
     * business id.
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
     * Tags every meter with {@code dialect=}{@link Dialect#name()}.
     *
     * @param dialect the dialect the client speaks
     * @return this builder
     * @throws NullPointerException if {@code dialect} is null
     */
    public Builder dialect(Dialect dialect) {
      return tag("dialect", dialect.name());
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
      this.maxOperations = atLeastOne(max, "maxOperations");
      return this;
    }

    /**
     * Caps the distinct {@code host} tag values (default 50); later new hosts become
     * {@code other}.
     *
     * @param max the cap, at least 1
     * @return this builder
     * @throws IllegalArgumentException if {@code max} is below 1
     */
    public Builder maxHosts(int max) {
      this.maxHosts = atLeastOne(max, "maxHosts");
      return this;
    }

    /**
     * Builds the listener. Meters appear in the registry as events arrive.
     *
     * @return the listener
     */
    public OncelyMetrics build() {
      return new OncelyMetrics(this);
    }

    private static int atLeastOne(int value, String name) {
      if (value < 1) {
        throw new IllegalArgumentException(name + " must be at least 1, was " + value);
      }
      return value;
    }
  }
}
