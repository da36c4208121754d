package dev.oncely.client;

import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.LoggingListener;
import dev.oncely.client.internal.Defaults;
import dev.oncely.client.internal.Durations;
import dev.oncely.client.internal.http.ClientEngine;
import dev.oncely.client.internal.http.OkHttpVersionCheck;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.logging.Level;
import java.util.logging.Logger;
import okhttp3.OkHttpClient;

/**
 * Executes {@link IntentSpec}s exactly once as far as the server's idempotency allows: the record
 * (key, exact body bytes, fingerprint) is stored, already claimed ({@code IN_FLIGHT}), before the
 * first byte is sent;
 * every attempt, poll and restart reuses the key; {@code 202}, {@code 409}, {@code 422},
 * {@code Retry-After} and timeouts are resolved; the outcome is stored before the caller is told.
 * A timeout after the request was written is reported as {@link IntentOutcome.Pending}, never as
 * failed.
 *
 * <p><b>Guarantees.</b> One drive per intent and store in the process (single-flight, across
 * clients, interceptors and schedulers): concurrent {@link #execute}/{@link #submit} calls for the
 * same intent (the same key, or the same business id in a scope and operation), and resumes of it,
 * share one drive and one outcome, and never put two requests for it on the wire at once; the
 * drive is registered before the record is created, so no second drive can start between the two.
 * A call made once the drive has begun its last write (the record stored {@code PENDING} or
 * finished, the {@link IntentEvent.GaveUpUnknown} or other final event delivered) does not share
 * that drive's outcome: it waits for the drive to end, then drives what it left (a finished record
 * answers from the store).
 * A drive that waits (backoff, {@code Retry-After}, a budget refill) holds no driver thread: one
 * timer per process resumes it ({@link #execute} blocks its own caller until then).
 * Re-submitting a spec whose key (or business id, in the same scope and operation) already has a
 * record continues that intent: a finished one returns its stored outcome without I/O; a changed
 * payload throws {@link PayloadMismatchException} before any I/O. Records past the server's {@linkplain Builder#keyRetention key retention} are
 * never resent: they go to the {@link Reconciler}.
 *
 * <p><b>Restart survival</b> needs a durable {@link IntentStore} (see {@code oncely-client-persistence});
 * after a restart call {@link #resumePending()}.
 *
 * <p>Defaults: a new {@link OkHttpClient}, an {@link InMemoryIntentStore}, {@link Dialects#ietf()},
 * {@link RetryPolicy#defaults()}, {@link RetryBudget#standard()}, {@link LoggingListener}, no
 * header provider, the system clock and sleeper, {@link NetworkGate#ALWAYS_OPEN}, the dialect's key
 * retention, {@link Reconciler#MANUAL}, responses kept up to {@value #DEFAULT_MAX_RESPONSE_BYTES}
 * bytes, and no finished-record cache with the default store (the in-memory store answers repeats
 * as fast as a cache); with another store, {@value #FINISHED_CACHE_SIZE} finished records cached by
 * {@link CaffeineRecordCacheFactory} when Caffeine is on the class path (none otherwise). The
 * client is thread-safe; share one instance.
 */
public final class IdempotentClient implements AutoCloseable {
  /** Default limit of a kept response body, in bytes (1 MiB). */
  public static final long DEFAULT_MAX_RESPONSE_BYTES = Defaults.MAX_RESPONSE_BYTES;
  /** Default number of threads of the client's own driver pool. */
  public static final int DEFAULT_DRIVER_THREADS = Defaults.DRIVER_THREADS;

  /**
   * Most drives {@link #resumePending()} has started that are still starting (queued for a driver
   * thread or on one); a drive that waits for its next attempt gives its place to the next.
   */
  public static final int RESUMES_STARTING_AT_ONCE = Defaults.RESUMES_STARTING_AT_ONCE;

  /**
   * Most drives {@link #resumePending()} has started and not yet seen end, waiting ones included;
   * the rest of the backlog waits as ids, so a resume's heap follows this number, not the size of
   * the backlog, whatever the server answers.
   */
  public static final int RESUMES_AT_ONCE = Defaults.RESUMES_AT_ONCE;

  /** How long {@link #close()} waits for running drives to record how they stopped. */
  public static final int CLOSE_GRACE_SECONDS = Defaults.CLOSE_GRACE_SECONDS;

  /** Default time a finished record is kept before {@link #purgeExpired()} may delete it. */
  public static final Duration DEFAULT_FINISHED_RETENTION = Defaults.FINISHED_RETENTION;
  /**
   * How many finished records are cached to answer repeats without a store read (a record enters
   * the cache when a repeat first reads it from the store).
   */
  public static final long FINISHED_CACHE_SIZE = Defaults.FINISHED_CACHE_SIZE;

  private static final Logger LOG = Logger.getLogger(IdempotentClient.class.getName());

  private final ClientEngine engine;
  private final boolean ownsStore;
  private volatile boolean closed;
  private DueWorkScheduler scheduler;

  private IdempotentClient(Builder b) {
    this.ownsStore = b.store == null;
    this.engine = new ClientEngine(
        b.settings(b.store != null ? b.store : new InMemoryIntentStore()),
        b.callFactory != null ? b.callFactory : ClientEngine.ownCopy(b.okHttpClient),
        b.headerProvider, b.executor, b.driverThreads);
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Drives {@code spec} on the calling thread (or waits for the drive already running for it) and
   * returns its outcome, which is already stored. A store failure while creating the record is
   * reported as {@link IntentOutcome.Pending} with {@link PendingReason#STORE_FAILED}: the record
   * may be durable all the same and be sent by a later resume, so re-submit the <em>same</em> spec
   * (same key), never a new one.
   *
   * @throws NullPointerException if {@code spec} is null
   * @throws PayloadMismatchException if the key (or business id) already has a record with another
   *     payload fingerprint; nothing is sent
   * @throws InvalidIntentException if the spec sets the dialect's key header itself
   * @throws IllegalStateException if the client is closed
   */
  public IntentOutcome execute(IntentSpec spec) {
    checkSpec(spec);
    try {
      return engine.execute(fresh(spec, IntentState.IN_FLIGHT)).join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw e;
    }
  }

  /**
   * Drives {@code spec} on the client's executor. The record is created by a driver thread before
   * the first byte is sent, so the calling thread (on Android usually the main thread) does no
   * store I/O for a new intent; it reads the finished-record cache only. While the intent waits
   * (backoff, {@code Retry-After}, a {@code 409} in progress, a {@code 202} poll interval, a
   * budget that must refill) it holds no thread: a timer resumes it on the executor. Each call
   * gets its own future: cancelling it stops waiting for that caller only, never the drive, which
   * other callers may share. The intent survives a crash once its record is durable, which the
   * {@link IntentEvent.Recorded} event reports (before the first byte is sent); before that a
   * crash loses the submit, never sends it.
   *
   * @return a future completed with the stored outcome, or exceptionally with {@link
   *     PayloadMismatchException} when the key (or business id) already has a record with another
   *     payload fingerprint (nothing is sent); a store failure while creating the record completes
   *     it with {@link PendingReason#STORE_FAILED}, as for {@link #execute}
   * @throws NullPointerException if {@code spec} is null
   * @throws InvalidIntentException if the spec sets the dialect's key header itself
   * @throws IllegalStateException if the client is closed
   */
  public CompletableFuture<IntentOutcome> submit(IntentSpec spec) {
    checkSpec(spec);
    return engine.submit(fresh(spec, IntentState.IN_FLIGHT));
  }

  /**
   * Drives every unfinished record in the store (after a restart, or to retry pending intents) with
   * its stored key and body bytes: a record with a stored status URL continues polling it; one
   * older than the key retention goes to the {@link Reconciler} instead of being resent. Finished
   * records past their retention are purged first (see {@link #purgeExpired()}).
   *
   * <p>The drives start oldest first, each reading its record when it starts: at most {@value
   * #RESUMES_STARTING_AT_ONCE} still starting (queued for a driver thread or on one; a drive that
   * waits for its next attempt gives its thread and its place to the next), and at most {@value
   * #RESUMES_AT_ONCE} not ended, waiting ones included. The rest of the backlog waits as ids, so a
   * resume of 50,000 intents holds 50,000 ids and futures, not 50,000 drives or records. Closing
   * the client completes the futures of drives not started yet as {@link IntentOutcome.Pending}
   * ({@link PendingReason#INTERRUPTED}).
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
    return engine.resumeAll();
  }

  /**
   * Starts (or joins) the drive of a queued resume: its place among the starting drives is free
   * once the drive first waits or ends, or at once when it joined a drive already running.
   */


  /**
   * Drives the stored record of intent {@code id} once more (single flight: joins a drive already
   * running for it), with its stored key, wire form and body bytes, like {@link #resumePending()}
   * does for every unfinished record. A drive that has already begun its last write is not
   * joined: a resume asked once the record is stored {@code PENDING} (or its {@link
   * IntentEvent.GaveUpUnknown} event is out) waits for that drive to end and drives the intent
   * again, rather than getting the outcome that stopped it. A finished record completes the future
   * with its stored outcome without I/O.
   *
   * @return a future completed with the stored outcome; completed exceptionally with {@link
   *     StoreException} if the store has no such record or fails
   * @throws NullPointerException if {@code id} is null
   * @throws IllegalStateException if the client is closed
   */
  public CompletableFuture<IntentOutcome> resume(IntentId id) {
    Objects.requireNonNull(id, "id");
    checkOpen();
    return engine.resume(id);
  }

  /**
   * Builds the record {@code spec} would be stored as, in state {@code NEW} (nothing sent, not
   * claimed by a drive), with this client's clock, dialect and key retention, without storing it:
   * for stores that write it inside the caller's own transaction. Drive it after the commit with
   * {@link #resume(IntentId)}.
   *
   * @throws NullPointerException if {@code spec} is null
   * @throws InvalidIntentException if the spec sets the dialect's key header itself
   * @throws IllegalStateException if the client is closed
   */
  public IntentRecord newRecord(IntentSpec spec) {
    checkSpec(spec);
    return fresh(spec, IntentState.NEW);
  }

  /**
   * The stored outcome of intent {@code id}, without I/O; empty if the store has no such record.
   * An unfinished record reads as {@link IntentOutcome.Pending}: {@link PendingReason#IN_PROGRESS}
   * while a drive of it runs in this process (on the wire or waiting for its next attempt, by any
   * client or interceptor on the same store), else the reason its last drive stopped with.
   *
   * @throws StoreException if the store fails
   */
  public Optional<IntentOutcome> outcomeOf(IntentId id) {
    Objects.requireNonNull(id, "id");
    return engine.outcomeOf(id);
  }

  /**
   * The stored outcome of the intent {@code tag} names (its scope, operation and business id),
   * without I/O; empty if the store has no such record. Same reading as {@link
   * #outcomeOf(IntentId)}.
   *
   * @throws IllegalArgumentException if {@code tag} has no business id (only the call knew its key)
   * @throws StoreException if the store fails
   */
  public Optional<IntentOutcome> outcomeOf(IntentTag tag) {
    return engine.outcomeOf(tag);
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
    return store().purgeExpired(engine.settings().clock().wall());
  }

  /** The store records are kept in. */
  public IntentStore store() {
    return engine.settings().store();
  }

  /**
   * Stops the client and every drive it owns: calls on the wire are canceled, waiting drives stop
   * at once, and drives on the wire stop at their next step; each ends {@link
   * PendingReason#INTERRUPTED} (maybe delivered once a byte left) and stays resumable. Once this
   * returns, no attempt of the client's intents reaches the wire. Waits up to {@value
   * #CLOSE_GRACE_SECONDS} s for running drives to record how they stopped, then shuts down the
   * client's own executor and closes the store if the client created it. Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (scheduler != null) {
      scheduler.close();
    }
    engine.close(Duration.ofSeconds(CLOSE_GRACE_SECONDS));
    if (ownsStore) {
      store().close();
    }
  }

  private void checkSpec(IntentSpec spec) {
    Objects.requireNonNull(spec, "spec");
    checkOpen();
    engine.checkKeyHeaderUnset(spec);
  }

  private IntentRecord fresh(IntentSpec spec, IntentState state) {
    return engine.candidate(spec, state);
  }



  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the client is closed");
    }
  }

  /**
   * The {@link DueWorkScheduler} this client runs ({@link Builder#scheduleDueWork}), so an app can
   * observe its {@linkplain DueWorkScheduler#state() state} and {@linkplain
   * DueWorkScheduler#failure() failure}; empty when due work is not scheduled by the client.
   */
  public Optional<DueWorkScheduler> dueWorkScheduler() {
    return Optional.ofNullable(scheduler);
  }

  /** Whether {@link #close()} was called (the due-work scheduler stops then). */
  boolean isClosed() {
    return closed;
  }

  /**
   * Builds {@link IdempotentClient}s. Not thread-safe; each setter validates its argument and
   * throws {@link NullPointerException} (naming the setting) for a null one.
   */
  public static final class Builder extends DriveSettingsBuilder<Builder> {
    private OkHttpClient okHttpClient;
    private okhttp3.Call.Factory callFactory;
    private IntentStore store;
    private HeaderProvider headerProvider = HeaderProvider.NONE;
    private java.util.concurrent.Executor executor;
    private int driverThreads = DEFAULT_DRIVER_THREADS;
    private Duration dueWorkInterval;

    private Builder() {}

    /**
     * Sets the OkHttp client attempts are sent with; the client uses a copy with silent connection
     * retries and redirect following turned off.
     *
     * @throws IllegalStateException if {@link #callFactory} was set
     */
    public Builder okHttpClient(OkHttpClient okHttpClient) {
      Objects.requireNonNull(okHttpClient, "okHttpClient");
      if (callFactory != null) {
        throw new IllegalStateException("callFactory and okHttpClient are alternatives; callFactory"
            + " was already set");
      }
      this.okHttpClient = okHttpClient;
      return this;
    }

    /**
     * Sends attempts through {@code callFactory} instead of an {@link OkHttpClient}, for wrappers
     * such as OpenTelemetry's OkHttp instrumentation. The factory must not retry or follow
     * redirects on its own (build the underlying client with {@code retryOnConnectionFailure(false)}
     * and {@code followRedirects(false)}); redirects it follows anyway are judged by their first
     * hop and never reported as completed when they turned the request into a GET or left the
     * origin.
     *
     * @throws IllegalStateException if {@link #okHttpClient} was set
     */
    public Builder callFactory(okhttp3.Call.Factory callFactory) {
      Objects.requireNonNull(callFactory, "callFactory");
      if (okHttpClient != null) {
        throw new IllegalStateException("callFactory and okHttpClient are alternatives; okHttpClient"
            + " was already set");
      }
      this.callFactory = callFactory;
      return this;
    }


    /** Sets where records live; the caller keeps ownership (the client does not close it). */
    public Builder store(IntentStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /** Sets the provider of send-time headers such as {@code Authorization} (never stored). */
    public Builder headerProvider(HeaderProvider headerProvider) {
      this.headerProvider = Objects.requireNonNull(headerProvider, "headerProvider");
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
     * Drives unfinished intents again at their due time, every {@code interval} (jittered), with
     * a {@link DueWorkScheduler} that the client starts when it is built and stops first in {@link
     * IdempotentClient#close()}; with a leasing store (PostgreSQL) each due intent goes to one
     * instance of a fleet. Default: off (call {@link IdempotentClient#resumePending()} yourself,
     * or build a {@link DueWorkScheduler} with other settings).
     *
     * @throws IllegalArgumentException if {@code interval} is null, zero or negative
     */
    public Builder scheduleDueWork(Duration interval) {
      this.dueWorkInterval = Durations.positive("scheduleDueWork", interval);
      return this;
    }

    /**
     * Returns the client.
     *
     * @throws IllegalStateException if the class path serves OkHttp 3 or 4 instead of OkHttp 5
     *     (the message names the BOM that fixes the build)
     */
    public IdempotentClient build() {
      OkHttpVersionCheck.requireOkHttp5();
      if (okHttpClient == null && callFactory == null) {
        okHttpClient = new OkHttpClient();
      }
      IdempotentClient client = new IdempotentClient(this);
      if (dueWorkInterval != null) {
        client.scheduler = DueWorkScheduler.builder(client).interval(dueWorkInterval).build();
        client.scheduler.start();
      }
      return client;
    }
  }
}
