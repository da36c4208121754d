package dev.oncely.client;

import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.event.LoggingListener;
import dev.oncely.client.internal.CallRegistry;
import dev.oncely.client.internal.Durations;
import dev.oncely.client.internal.EngineConfig;
import dev.oncely.client.internal.IntentDriver;
import dev.oncely.client.internal.Outcomes;
import dev.oncely.client.internal.SafeListener;
import dev.oncely.client.spi.DuplicateIntentException;
import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.IntentStore;
import dev.oncely.client.spi.NetworkGate;
import dev.oncely.client.spi.RecordCache;
import dev.oncely.client.spi.StoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import okhttp3.OkHttpClient;

/**
 * Executes {@link IntentSpec}s exactly once as far as the server's idempotency allows: the record
 * (key, exact body bytes, fingerprint) is stored in state {@code NEW} before the first byte is sent;
 * every attempt, poll and restart reuses the key; {@code 202}, {@code 409}, {@code 422},
 * {@code Retry-After} and timeouts are resolved; the outcome is stored before the caller is told.
 * A timeout after the request was written is reported as {@link IntentOutcome.Pending}, never as
 * failed.
 *
 * <p><b>Guarantees.</b> One driver per intent per client (single-flight): concurrent
 * {@link #execute}/{@link #submit} calls for the same intent share one drive and one outcome, and
 * never put two requests for it on the wire at once. Re-submitting a spec whose key (or business id,
 * in the same scope and operation) already has a record continues that intent: a finished one
 * returns its stored outcome without I/O; a changed payload throws {@link PayloadMismatchException}
 * before any I/O. Records past the server's {@linkplain Builder#keyRetention key retention} are
 * never resent: they go to the {@link Reconciler}.
 *
 * <p><b>Restart survival</b> needs a durable {@link IntentStore} (see {@code oncely-client-persistence});
 * after a restart call {@link #resumePending()}.
 *
 * <p>Defaults: a new {@link OkHttpClient}, an {@link InMemoryIntentStore}, {@link Dialects#ietf()},
 * {@link RetryPolicy#defaults()}, {@link RetryBudget#standard()}, {@link LoggingListener}, no
 * header provider, the system clock and sleeper, {@link NetworkGate#ALWAYS_OPEN}, the dialect's key
 * retention, {@link Reconciler#MANUAL}, {@link CaffeineRecordCacheFactory}, responses kept up to
 * {@value #DEFAULT_MAX_RESPONSE_BYTES} bytes. The client is thread-safe; share one instance.
 */
public final class IdempotentClient implements AutoCloseable {
  /** Default limit of a kept response body, in bytes (1 MiB). */
  public static final long DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
  /** Default number of threads of the client's own driver pool. */
  public static final int DEFAULT_DRIVER_THREADS = 16;

  /** Default time a finished record is kept before {@link #purgeExpired()} may delete it. */
  public static final Duration DEFAULT_FINISHED_RETENTION = Duration.ofDays(7);
  /** How many finished records are cached to answer repeats without a store read. */
  public static final long FINISHED_CACHE_SIZE = 10_000;

  private static final Logger LOG = Logger.getLogger(IdempotentClient.class.getName());

  private final EngineConfig config;
  private final boolean ownsStore;
  private final ExecutorService ownedExecutor;
  private final java.util.concurrent.Executor executor;
  private final ConcurrentMap<IntentId, CompletableFuture<IntentOutcome>> drives =
      new ConcurrentHashMap<>();
  private volatile boolean closed;

  private IdempotentClient(Builder b) {
    IntentStore store = b.store != null ? b.store : new InMemoryIntentStore();
    this.ownsStore = b.store == null;
    Dialect dialect = b.dialect;
    RecordCache.Factory caches =
        b.recordCacheFactory != null ? b.recordCacheFactory : new CaffeineRecordCacheFactory();
    Duration keyRetention = b.keyRetention != null ? b.keyRetention : dialect.keyRetention();
    this.config = new EngineConfig(
        // The engine counts, budgets and reports every resend itself, so OkHttp must not add
        // silent ones; those would still carry the same key, but would hide from the policy.
        b.okHttpClient.newBuilder().retryOnConnectionFailure(false).build(),
        store,
        dialect,
        b.retryPolicy,
        b.retryBudget,
        new SafeListener(b.listener),
        b.headerProvider,
        b.clock,
        b.sleeper,
        b.networkGate,
        keyRetention,
        max(b.finishedRetention, keyRetention),
        b.reconciler,
        b.jitter,
        b.maxResponseBytes,
        caches.create(FINISHED_CACHE_SIZE),
        new CallRegistry());
    if (b.executor != null) {
      this.ownedExecutor = null;
      this.executor = b.executor;
    } else {
      ThreadPoolExecutor pool = new ThreadPoolExecutor(b.driverThreads, b.driverThreads,
          30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), new DriverThreads());
      pool.allowCoreThreadTimeOut(true);
      this.ownedExecutor = pool;
      this.executor = ownedExecutor;
    }
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Drives {@code spec} on the calling thread (or waits for the drive already running for it) and
   * returns its outcome, which is already stored.
   *
   * @throws NullPointerException if {@code spec} is null
   * @throws PayloadMismatchException if the key (or business id) already has a record with another
   *     payload fingerprint; nothing is sent
   * @throws StoreException if the store cannot create the record; nothing is sent
   * @throws IllegalStateException if the client is closed
   */
  public IntentOutcome execute(IntentSpec spec) {
    Prepared prepared = prepare(spec);
    IntentRecord record = prepared.record();
    if (record.state().isTerminal()) {
      return Outcomes.of(record);
    }
    try {
      return start(record.id(), true, prepared.claimed()).join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw e;
    }
  }

  /**
   * Stores {@code spec}'s record on the calling thread, then drives it on the client's executor.
   * The checks that can refuse the spec run before this method returns.
   *
   * @return a future completed with the stored outcome
   * @throws NullPointerException if {@code spec} is null
   * @throws PayloadMismatchException if the key (or business id) already has a record with another
   *     payload fingerprint; nothing is sent
   * @throws StoreException if the store cannot create the record; nothing is sent
   * @throws IllegalStateException if the client is closed
   */
  public CompletableFuture<IntentOutcome> submit(IntentSpec spec) {
    Prepared prepared = prepare(spec);
    IntentRecord record = prepared.record();
    if (record.state().isTerminal()) {
      return CompletableFuture.completedFuture(Outcomes.of(record));
    }
    return start(record.id(), false, prepared.claimed());
  }

  /**
   * Drives every unfinished record in the store (after a restart, or to retry pending intents) with
   * its stored key and body bytes: a record with a stored status URL continues polling it; one
   * older than the key retention goes to the {@link Reconciler} instead of being resent. Finished
   * records past their retention are purged first (see {@link #purgeExpired()}).
   *
   * @return one future per unfinished record, oldest first, each completed with the stored outcome
   * @throws StoreException if the store cannot list the records
   * @throws IllegalStateException if the client is closed
   */
  public List<CompletableFuture<IntentOutcome>> resumePending() {
    checkOpen();
    try {
      purgeExpired();
    } catch (StoreException e) {
      // Purging is housekeeping; resuming unfinished intents must not depend on it.
      LOG.log(Level.WARNING, "purging expired records failed; resuming anyway", e);
    }
    List<CompletableFuture<IntentOutcome>> futures = new ArrayList<>();
    for (IntentRecord record : config.store().listUnfinished()) {
      futures.add(start(record.id(), false, null));
    }
    return futures;
  }

  /**
   * Drives the stored record of intent {@code id} once more (single flight: joins a drive already
   * running for it), with its stored key, wire form and body bytes, like {@link #resumePending()}
   * does for every unfinished record. A finished record completes the future with its stored
   * outcome without I/O.
   *
   * @return a future completed with the stored outcome; completed exceptionally with {@link
   *     StoreException} if the store has no such record or fails
   * @throws NullPointerException if {@code id} is null
   * @throws IllegalStateException if the client is closed
   */
  public CompletableFuture<IntentOutcome> resume(IntentId id) {
    Objects.requireNonNull(id, "id");
    checkOpen();
    return start(id, false, null);
  }

  /**
   * The stored outcome of intent {@code id}, without I/O; empty if the store has no such record.
   * An unfinished record reads as {@link IntentOutcome.Pending}.
   *
   * @throws StoreException if the store fails
   */
  public Optional<IntentOutcome> outcomeOf(IntentId id) {
    Objects.requireNonNull(id, "id");
    return config.store().get(id).map(Outcomes::of);
  }

  /**
   * Deletes finished records whose retention ended (see {@link Builder#finishedRetention}), using
   * the client's clock; {@link #resumePending()} calls it too. Unfinished records are never purged.
   *
   * @return how many records were deleted
   * @throws StoreException if the store fails
   */
  public int purgeExpired() {
    checkOpen();
    return config.store().purgeExpired(config.clock().instant());
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /** The store records are kept in. */
  public IntentStore store() {
    return config.store();
  }

  /**
   * Stops the client: cancels calls on the wire, interrupts drives on its own executor (they end
   * {@link PendingReason#INTERRUPTED} and stay resumable) and closes the store if the client created
   * it. Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    config.calls().closeAll();
    if (ownedExecutor != null) {
      ownedExecutor.shutdownNow();
      try {
        ownedExecutor.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (ownsStore) {
      config.store().close();
    }
  }

  /**
   * The record an execute/submit continues; {@code claimed} is the record this call created, which
   * its drive owns without another compare-and-set, or null when the record already existed.
   */
  private record Prepared(IntentRecord record, IntentRecord claimed) {}

  private Prepared prepare(IntentSpec spec) {
    Objects.requireNonNull(spec, "spec");
    checkOpen();
    IntentRecord finished = config.finished().getIfPresent(spec.id());
    if (finished != null) {
      return new Prepared(sameIntent(finished, spec), null);
    }
    // Create first, look up only when the store refuses: a new intent (the common case) then
    // costs one durable write and no read. The refusal happens before any network I/O.
    Instant now = config.clock().instant();
    IntentRecord fresh = IntentRecord.builder()
        .id(spec.id())
        .businessId(spec.businessId())
        .method(spec.method())
        .url(spec.url())
        .headers(spec.headers())
        .body(spec.body(), spec.mediaType())
        .fingerprint(spec.fingerprint())
        .keyWireForm(config.dialect().keyHeader(), config.dialect().formatKey(spec.key()))
        .traceContext(spec.traceContext())
        // Created already claimed: this one commit is the only one before the first send. The
        // drive that follows owns the record without a NEW -> IN_FLIGHT compare-and-set, and a
        // crash during the first attempt leaves IN_FLIGHT, so resume treats it as maybe sent.
        .state(IntentState.IN_FLIGHT)
        .createdAt(now)
        .updatedAt(now)
        .expiresAt(now.plus(config.keyRetention()))
        .build();
    try {
      config.store().create(fresh);
      return new Prepared(fresh, fresh);
    } catch (DuplicateIntentException e) {
      IntentRecord raced = find(spec);
      if (raced == null) {
        throw e;
      }
      return new Prepared(sameIntent(raced, spec), null);
    }
  }

  private IntentRecord find(IntentSpec spec) {
    IntentRecord cached = config.finished().getIfPresent(spec.id());
    if (cached != null) {
      return cached;
    }
    Optional<IntentRecord> byKey = config.store().get(spec.id());
    if (byKey.isPresent()) {
      return byKey.get();
    }
    if (spec.businessId() != null) {
      return config.store()
          .findByBusinessId(spec.scope(), spec.operation(), spec.businessId())
          .orElse(null);
    }
    return null;
  }

  private static IntentRecord sameIntent(IntentRecord existing, IntentSpec spec) {
    if (!existing.fingerprint().equals(spec.fingerprint())) {
      throw new PayloadMismatchException(existing.id());
    }
    return existing;
  }

  private CompletableFuture<IntentOutcome> start(IntentId id, boolean inline,
      IntentRecord claimed) {
    CompletableFuture<IntentOutcome> mine = new CompletableFuture<>();
    CompletableFuture<IntentOutcome> running = drives.putIfAbsent(id, mine);
    if (running != null) {
      return running;
    }
    Runnable drive = () -> {
      try {
        if (claimed != null) {
          mine.complete(IntentDriver.drive(config, claimed, true));
          return;
        }
        // Read again now that this thread owns the drive: another drive may have just finished.
        Optional<IntentRecord> current = config.store().get(id);
        if (current.isEmpty()) {
          mine.completeExceptionally(new StoreException("record " + id + " is not in the store"));
        } else {
          mine.complete(IntentDriver.drive(config, current.get(), false));
        }
      } catch (RuntimeException | Error e) {
        mine.completeExceptionally(e);
      } finally {
        drives.remove(id, mine);
      }
    };
    if (inline) {
      drive.run();
    } else {
      try {
        executor.execute(drive);
      } catch (RejectedExecutionException e) {
        drives.remove(id, mine);
        mine.completeExceptionally(new IllegalStateException("the client is closed", e));
      }
    }
    return mine;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the client is closed");
    }
  }

  private static final class DriverThreads implements ThreadFactory {
    private final AtomicInteger count = new AtomicInteger();

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, "oncely-driver-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    }
  }

  /**
   * Builds {@link IdempotentClient}s. Not thread-safe; each setter validates its argument and
   * throws {@link NullPointerException} (naming the setting) for a null one.
   */
  public static final class Builder {
    private OkHttpClient okHttpClient;
    private IntentStore store;
    private Dialect dialect = Dialects.ietf();
    private RetryPolicy retryPolicy = RetryPolicy.defaults();
    private RetryBudget retryBudget;
    private IntentListener listener = LoggingListener.instance();
    private HeaderProvider headerProvider = HeaderProvider.NONE;
    private Clock clock = Clock.systemUTC();
    private Sleeper sleeper = Sleeper.SYSTEM;
    private NetworkGate networkGate = NetworkGate.ALWAYS_OPEN;
    private Duration keyRetention;
    private Duration finishedRetention = DEFAULT_FINISHED_RETENTION;
    private Reconciler reconciler = Reconciler.MANUAL;
    private java.util.concurrent.Executor executor;
    private RecordCache.Factory recordCacheFactory;
    private long maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;
    private Random jitter = new Random();
    private int driverThreads = DEFAULT_DRIVER_THREADS;

    private Builder() {}

    /** Sets the OkHttp client attempts are sent with (its silent connection retries are turned off). */
    public Builder okHttpClient(OkHttpClient okHttpClient) {
      this.okHttpClient = Objects.requireNonNull(okHttpClient, "okHttpClient");
      return this;
    }

    /** Sets where records live; the caller keeps ownership (the client does not close it). */
    public Builder store(IntentStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /** Sets the server dialect (default {@link Dialects#ietf()}). */
    public Builder dialect(Dialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /** Sets the retry policy (default {@link RetryPolicy#defaults()}). */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
      return this;
    }

    /** Sets the retry budget, which may be shared between clients (default: a new standard one). */
    public Builder retryBudget(RetryBudget retryBudget) {
      this.retryBudget = Objects.requireNonNull(retryBudget, "retryBudget");
      return this;
    }

    /**
     * Sets the event listener (default {@link LoggingListener}); combine several with {@link
     * IntentListener#all}. Its exceptions are caught and logged.
     */
    public Builder listener(IntentListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Sets the provider of send-time headers such as {@code Authorization} (never stored). */
    public Builder headerProvider(HeaderProvider headerProvider) {
      this.headerProvider = Objects.requireNonNull(headerProvider, "headerProvider");
      return this;
    }

    /** Sets the clock for record times, deadlines and {@code Retry-After} dates. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Sets how the driver waits between attempts (tests inject one that does not wait). */
    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
      return this;
    }

    /** Sets the gate that pauses attempts while offline (default {@link NetworkGate#ALWAYS_OPEN}). */
    public Builder networkGate(NetworkGate networkGate) {
      this.networkGate = Objects.requireNonNull(networkGate, "networkGate");
      return this;
    }

    /**
     * Sets how long the server keeps keys (default: the dialect's). A record that may have been sent
     * and is older than this is never resent: it goes to the {@link Reconciler}. Finished records
     * are kept this long after they finish.
     *
     * @throws IllegalArgumentException if it is null, zero or negative
     */
    public Builder keyRetention(Duration keyRetention) {
      this.keyRetention = Durations.positive("keyRetention", keyRetention);
      return this;
    }

    /**
     * Sets how long a finished (completed, rejected, conflicting) record is kept, so a repeat of
     * the intent returns the stored outcome without I/O (default
     * {@link #DEFAULT_FINISHED_RETENTION}). Never shorter than the key retention: a record purged
     * while the server still remembers the key is harmless, but one purged earlier than the
     * client's own repeats would resend them.
     *
     * @throws IllegalArgumentException if {@code finishedRetention} is null, zero or negative
     */
    public Builder finishedRetention(Duration finishedRetention) {
      this.finishedRetention = Durations.positive("finishedRetention", finishedRetention);
      return this;
    }

    /** Sets who resolves intents that cannot be resent (default {@link Reconciler#MANUAL}). */
    public Builder reconciler(Reconciler reconciler) {
      this.reconciler = Objects.requireNonNull(reconciler, "reconciler");
      return this;
    }

    /**
     * Sets the executor {@link IdempotentClient#submit} and {@link IdempotentClient#resumePending}
     * drive intents on (default: an own pool of {@link #driverThreads} daemon threads, shut down by
     * {@link IdempotentClient#close}). A given executor is not shut down.
     */
    public Builder executor(java.util.concurrent.Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Sets the size of the client's own driver pool (default {@value #DEFAULT_DRIVER_THREADS});
     * further drives queue. Ignored when an {@link #executor} is given.
     *
     * @throws IllegalArgumentException if {@code driverThreads} is below 1
     */
    public Builder driverThreads(int driverThreads) {
      if (driverThreads < 1) {
        throw new IllegalArgumentException("driverThreads must be >= 1, was " + driverThreads);
      }
      this.driverThreads = driverThreads;
      return this;
    }

    /**
     * Sets the factory of the finished-records cache (default {@link CaffeineRecordCacheFactory};
     * Android passes one that does not use Caffeine).
     */
    public Builder recordCacheFactory(RecordCache.Factory recordCacheFactory) {
      this.recordCacheFactory = Objects.requireNonNull(recordCacheFactory, "recordCacheFactory");
      return this;
    }

    /**
     * Sets how many bytes of a response body are kept (default {@value #DEFAULT_MAX_RESPONSE_BYTES});
     * longer bodies are kept cut.
     *
     * @throws IllegalArgumentException if it is negative
     */
    public Builder maxResponseBytes(long maxResponseBytes) {
      if (maxResponseBytes < 0) {
        throw new IllegalArgumentException("maxResponseBytes must be >= 0, was " + maxResponseBytes);
      }
      this.maxResponseBytes = maxResponseBytes;
      return this;
    }

    /**
     * Sets the random source of the backoff jitter (default a thread-safe {@link Random}); a fixed
     * source makes retry schedules reproducible in simulations. Must be thread-safe.
     */
    public Builder jitter(Random jitter) {
      this.jitter = Objects.requireNonNull(jitter, "jitter");
      return this;
    }

    /** Returns the client. */
    public IdempotentClient build() {
      if (okHttpClient == null) {
        okHttpClient = new OkHttpClient();
      }
      if (retryBudget == null) {
        retryBudget = RetryBudget.standard();
      }
      return new IdempotentClient(this);
    }
  }
}
