package dev.oncely.client;

import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.event.LoggingListener;
import dev.oncely.client.internal.drive.DriveSettings;
import dev.oncely.client.internal.http.CallScopedStore;
import dev.oncely.client.internal.Defaults;
import dev.oncely.client.internal.Durations;
import dev.oncely.client.internal.EngineClock;
import dev.oncely.client.internal.Origins;
import dev.oncely.client.internal.drive.SafeListener;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Random;
import java.util.Set;

/**
 * The settings every entry point drives intents with, set the same way, with the same defaults
 * and the same checks, on {@link IdempotentClient.Builder} and {@link
 * IdempotencyInterceptor.Builder}. Not thread-safe. Every setter throws {@link
 * NullPointerException} naming the setting for a null argument, and {@link
 * IllegalArgumentException} naming it for a value out of range.
 *
 * <p>Defaults: {@link Dialects#ietf()}, {@link RetryPolicy#defaults()}, a new {@link
 * RetryBudget#standard()} per client or interceptor, {@link LoggingListener}, the system clock and
 * {@link Sleeper#SYSTEM}, {@link NetworkGate#ALWAYS_OPEN}, the dialect's key retention, a finished
 * retention of {@link IdempotentClient#DEFAULT_FINISHED_RETENTION}, {@link Reconciler#MANUAL},
 * responses kept up to {@link IdempotentClient#DEFAULT_MAX_RESPONSE_BYTES} bytes, and a
 * finished-record cache from {@link CaffeineRecordCacheFactory} when Caffeine is on the class path
 * (none otherwise, as on Android, which passes its own factory).
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class DriveSettingsBuilder<B extends DriveSettingsBuilder<B>> {
  private Dialect dialect = Dialects.ietf();
  private RetryPolicy retryPolicy = RetryPolicy.defaults();
  private RetryBudget retryBudget;
  private IntentListener listener = LoggingListener.instance();
  private Clock clock = Clock.systemUTC();
  private Sleeper sleeper = Sleeper.SYSTEM;
  private Random jitter = new Random();
  private NetworkGate networkGate = NetworkGate.ALWAYS_OPEN;
  private Duration keyRetention;
  private Duration finishedRetention = Defaults.FINISHED_RETENTION;
  private boolean keepFinishedRequests;
  private Reconciler reconciler = Reconciler.MANUAL;
  private long maxResponseBytes = Defaults.MAX_RESPONSE_BYTES;
  private RecordCache.Factory recordCacheFactory;
  private final Set<String> credentialOrigins = new LinkedHashSet<>();

  DriveSettingsBuilder() {}

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /** Sets the server dialect (default {@link Dialects#ietf()}). */
  public B dialect(Dialect dialect) {
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    return self();
  }

  /**
   * Sets the retry policy (default {@link RetryPolicy#defaults()}); its attempt timeout bounds each
   * attempt (see {@link RetryPolicy#attemptTimeout()}).
   */
  public B retryPolicy(RetryPolicy retryPolicy) {
    this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
    return self();
  }

  /**
   * Sets the retry budget, which may be shared between clients and interceptors that talk to the
   * same hosts (default: a new {@link RetryBudget#standard()}).
   */
  public B retryBudget(RetryBudget retryBudget) {
    this.retryBudget = Objects.requireNonNull(retryBudget, "retryBudget");
    return self();
  }

  /**
   * Sets the event listener (default {@link LoggingListener}); combine several with {@link
   * IntentListener#all}. Its exceptions are caught and logged.
   */
  public B listener(IntentListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
    return self();
  }

  /**
   * Sets the wall clock (default {@link Clock#systemUTC()}): record times, due times, {@code
   * Retry-After} dates and the key-retention check, which is all a record is judged by across a
   * restart. Deadlines, attempt timeouts and waits inside one process run on a monotonic clock
   * ({@link System#nanoTime()} for the system clock in any zone), so a step of the wall clock does
   * not move them. Any other clock is taken as simulated time: its readings, held still while they
   * go back, measure those too. A record's age is never judged younger than its own stored times
   * show (see docs/client.md, "Clocks").
   */
  public B clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return self();
  }

  /**
   * Sets how waits between attempts happen. The default, {@link Sleeper#SYSTEM}, waits on one
   * timer thread per process and holds no thread of the client's (a blocking call, {@code
   * execute()} or an OkHttp call through the interceptor, still blocks its caller); any other
   * sleeper (tests inject one that advances a test clock instead of waiting) is called on the
   * thread that drives the intent.
   */
  public B sleeper(Sleeper sleeper) {
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    return self();
  }

  /**
   * Sets the random source of the backoff jitter (default a thread-safe {@link Random}); a fixed
   * source makes retry schedules reproducible in simulations. Must be thread-safe.
   */
  public B jitter(Random jitter) {
    this.jitter = Objects.requireNonNull(jitter, "jitter");
    return self();
  }

  /**
   * Sets the gate that pauses attempts while offline (default {@link NetworkGate#ALWAYS_OPEN}): a
   * drive waits for it until the policy's deadline (then the record is parked {@link
   * PendingReason#OFFLINE}), or until it is stopped.
   */
  public B networkGate(NetworkGate networkGate) {
    this.networkGate = Objects.requireNonNull(networkGate, "networkGate");
    return self();
  }

  /**
   * Sets how long the server keeps keys (default: the dialect's). A record that may have been sent
   * and is older than this is never resent: it goes to the {@link Reconciler}. Unfinished records
   * expire this long after they were created.
   *
   * @throws IllegalArgumentException if it is zero or negative
   */
  public B keyRetention(Duration keyRetention) {
    Objects.requireNonNull(keyRetention, "keyRetention");
    this.keyRetention = Durations.positive("keyRetention", keyRetention);
    return self();
  }

  /**
   * Sets how long a finished (completed, rejected, conflicting) record is kept, so a repeat of the
   * intent is answered from the store without I/O (default {@link
   * IdempotentClient#DEFAULT_FINISHED_RETENTION}). Never shorter than the key retention: a record
   * purged earlier than the server forgets the key would let a repeat be sent again.
   *
   * @throws IllegalArgumentException if it is zero or negative
   */
  public B finishedRetention(Duration finishedRetention) {
    Objects.requireNonNull(finishedRetention, "finishedRetention");
    this.finishedRetention = Durations.positive("finishedRetention", finishedRetention);
    return self();
  }

  /**
   * Sets whether a finished (completed, rejected, conflicting) record keeps the request it was
   * sent with, its body and stored headers, for audit (default false). A finished intent is never
   * sent again, so by default its record drops them when it finishes and keeps what a repeat
   * needs: identity, payload fingerprint, a SHA-256 of the body bytes, the outcome and the stored
   * response ({@link IntentRecord#requestDropped()}); a store then holds a few hundred bytes per
   * finished intent instead of the body's size more. Records that are not finished always keep
   * their request: they may be sent again.
   */
  public B keepFinishedRequests(boolean keep) {
    this.keepFinishedRequests = keep;
    return self();
  }

  /** Sets who resolves intents that cannot be resent (default {@link Reconciler#MANUAL}). */
  public B reconciler(Reconciler reconciler) {
    this.reconciler = Objects.requireNonNull(reconciler, "reconciler");
    return self();
  }

  /**
   * Sets how many bytes of a response body are kept in the record (default {@link
   * IdempotentClient#DEFAULT_MAX_RESPONSE_BYTES}); longer bodies are kept cut.
   *
   * @throws IllegalArgumentException if it is negative
   */
  public B maxResponseBytes(long maxResponseBytes) {
    if (maxResponseBytes < 0) {
      throw new IllegalArgumentException("maxResponseBytes must be >= 0, was " + maxResponseBytes);
    }
    this.maxResponseBytes = maxResponseBytes;
    return self();
  }

  /**
   * Sets the factory of the finished-records cache (default {@link CaffeineRecordCacheFactory}
   * when Caffeine is on the class path; Android passes one that does not use Caffeine). Not used
   * with an {@link InMemoryIntentStore}, which answers repeats as fast as a cache.
   */
  public B recordCacheFactory(RecordCache.Factory recordCacheFactory) {
    this.recordCacheFactory = Objects.requireNonNull(recordCacheFactory, "recordCacheFactory");
    return self();
  }

  /**
   * Lists origins other than the intent's own ({@code https://host} or {@code https://host:port})
   * whose status URLs may be polled with the intent's stored headers and credentials (the intent
   * API's {@link HeaderProvider}, which is told the target is cross-origin; the app's own headers
   * through the interceptor). Default: none, so a status URL on another origin, or on http for an
   * https intent, is polled without them.
   *
   * @throws IllegalArgumentException if an entry is not an http(s) origin
   */
  public B credentialOrigins(String... origins) {
    for (String origin : Objects.requireNonNull(origins, "origins")) {
      credentialOrigins.add(Origins.parse(origin));
    }
    return self();
  }

  /** The dialect set. */
  Dialect dialect() {
    return dialect;
  }

  /** The settings of every drive on {@code store}, built once by the client or interceptor. */
  DriveSettings settings(IntentStore store) {
    Duration retention = keyRetention != null ? keyRetention : dialect.keyRetention();
    Duration finished = finishedRetention.compareTo(retention) >= 0 ? finishedRetention
        : retention;
    return new DriveSettings(store, dialect, retryPolicy,
        retryBudget != null ? retryBudget : RetryBudget.standard(), new SafeListener(listener),
        EngineClock.of(clock), sleeper, jitter, networkGate, retention, finished, reconciler,
        // The in-memory store answers a repeat as fast as a cache would: no second copy of it.
        store instanceof InMemoryIntentStore || store instanceof CallScopedStore ? null
            : finishedCache(),
        Set.copyOf(credentialOrigins), maxResponseBytes,
        // A call-scoped record is forgotten when its call returns: dropping its request (a
        // SHA-256 of the body per call) would save nothing.
        keepFinishedRequests || store instanceof CallScopedStore);
  }

  private RecordCache<IntentId, IntentRecord> finishedCache() {
    if (recordCacheFactory != null) {
      return recordCacheFactory.create(Defaults.FINISHED_CACHE_SIZE);
    }
    try {
      Class.forName("com.github.benmanes.caffeine.cache.Caffeine", false,
          DriveSettingsBuilder.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError absent) {
      return null;
    }
    return new CaffeineRecordCacheFactory().create(Defaults.FINISHED_CACHE_SIZE);
  }
}
