package dev.oncely.client;

import dev.oncely.client.internal.drive.DriveRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Drives unfinished intents again when they are {@linkplain DueTime due}, for every store: on each
 * tick it {@linkplain IntentStore#claimDue claims} due records from the client's store and drives
 * each with {@link IdempotentClient#resume(IntentId)} (single flight, so an intent this process is
 * already driving is not driven twice), or, built for an {@link IdempotencyInterceptor}, through the
 * app's own client. Leasing stores (PostgreSQL) hand each due record to one
 * instance of a fleet at a time; the claim is {@linkplain IntentStore#release released} when the
 * drive ends.
 *
 * <p><b>No stampede.</b> The first tick waits a random part of one interval, every later wait is the
 * interval with random jitter, and one tick claims at most {@link Builder#batchSize} records and
 * never more than {@link Builder#maxConcurrent} drives at once, so many instances starting cold on
 * one backlog share it instead of hitting the server together.
 *
 * <p><b>Lifecycle.</b> {@link #start()} starts one daemon thread; {@link #close()} stops it (drives
 * already started go on in the client until they end or the client is closed). Close the scheduler
 * before the client; a scheduler left running stops by itself at its next tick after the client
 * (or the interceptor) was closed. {@link #state()} tells where it stands.
 *
 * <p><b>Failures never end it silently.</b> What one tick throws decides what happens next:
 * <ul>
 *   <li>a {@link StoreException} (the store failed to claim): logged at {@code WARNING}, kept as
 *       {@link #lastTickFailure()}, and the next tick tries again;
 *   <li>any other {@link RuntimeException} (nothing expected it: a bug, in the SDK or in code it
 *       calls): logged at {@code SEVERE}, kept as {@link #lastTickFailure()}, told to the
 *       {@linkplain Builder#onFailure failure listener}, and the next tick tries again: one bad
 *       tick does not end due work for the life of the process;
 *   <li>an {@link Error} ({@code OutOfMemoryError}, {@code StackOverflowError}, a linkage error):
 *       the JVM may be in no state to go on, so the scheduler stops: the error is kept as {@link
 *       #failure()} (and {@link #state()} turns {@link State#FAILED}) before anything else, then
 *       logged at {@code SEVERE} and told to the failure listener, and the thread ends. Nothing
 *       restarts it: observe {@link #state()} (the Spring Boot starter's health indicator turns
 *       {@code DOWN}) and restart the process or build a new scheduler.
 * </ul>
 * A tick that succeeds clears {@link #lastTickFailure()}.
 *
 * <p>Defaults: interval 1 s, jitter 20 %, batch size 64, 64 concurrent drives, the system clock,
 * no failure listener. Thread-safe.
 */
public final class DueWorkScheduler implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(DueWorkScheduler.class.getName());

  private final IntentStore store;
  private final Function<IntentId, CompletableFuture<IntentOutcome>> drive;
  private final Duration interval;
  private final double jitter;
  private final int batchSize;
  private final int maxConcurrent;
  private final Clock clock;
  private final Random random;
  private final Consumer<List<IntentOutcome>> outcomes;
  private final Consumer<Throwable> onFailure;
  private final BooleanSupplier ownerClosed;
  private final AtomicInteger driving = new AtomicInteger();
  private final Object lifecycle = new Object();
  private Thread thread;
  private volatile boolean stopped;
  private volatile boolean ended;
  private volatile Throwable failure;
  private volatile RuntimeException lastTickFailure;

  /** Where a scheduler stands; see {@link #state()}. */
  public enum State {
    /** Built, not started. */
    NEW,
    /** Its thread runs ticks (a tick may have failed: see {@link #lastTickFailure()}). */
    RUNNING,
    /** Closed, or stopped by itself because its client or interceptor was closed. */
    STOPPED,
    /** Stopped by an {@link Error} it could not survive: see {@link #failure()}. */
    FAILED
  }

  private DueWorkScheduler(Builder b) {
    this.store = b.store;
    this.drive = b.drive;
    this.interval = b.interval;
    this.jitter = b.jitter;
    this.batchSize = b.batchSize;
    this.maxConcurrent = b.maxConcurrent;
    this.clock = b.clock;
    this.random = b.random;
    this.outcomes = b.outcomes;
    this.onFailure = b.onFailure;
    this.ownerClosed = b.ownerClosed;
  }

  /**
   * Returns a builder for a scheduler driving {@code client}'s store.
   *
   * @throws NullPointerException if {@code client} is null
   */
  public static Builder builder(IdempotentClient client) {
    Objects.requireNonNull(client, "client");
    return new Builder(client.store(), client::resume, client::isClosed);
  }

  /**
   * Returns a builder for a scheduler that drives the interceptor's unfinished records at their
   * due time through {@code appClient}, the app's own client with the interceptor in it (see
   * {@link IdempotencyInterceptor#resume}).
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalStateException if the interceptor has no store, or {@code appClient} is an
   *     {@code OkHttpClient} that does not run the interceptor
   */
  public static Builder builder(IdempotencyInterceptor interceptor, okhttp3.Call.Factory appClient) {
    Objects.requireNonNull(interceptor, "interceptor");
    Objects.requireNonNull(appClient, "appClient");
    interceptor.requireInstalledOn(appClient);
    return new Builder(interceptor.store(), id -> interceptor.resume(appClient, id),
        interceptor::isClosed);
  }

  /**
   * Starts the scheduler thread. Idempotent while running.
   *
   * @throws IllegalStateException if the scheduler was closed
   */
  public void start() {
    synchronized (lifecycle) {
      if (stopped) {
        throw new IllegalStateException("the scheduler is closed");
      }
      if (thread != null) {
        return;
      }
      thread = new Thread(this::loop, "oncely-due-work");
      thread.setDaemon(true);
      thread.start();
    }
  }

  /**
   * Claims the records due now (up to the batch size and the free drive slots) and starts a drive
   * for each, on the calling thread; {@link #start()} calls it on every tick.
   *
   * @return how many drives were started
   * @throws StoreException if the store cannot claim; nothing was started
   * @throws IllegalStateException if the client is closed
   */
  public int pollOnce() {
    int free = maxConcurrent - driving.get();
    if (free <= 0) {
      return 0;
    }
    List<IntentRecord> due = store.claimDue(clock.instant(), Math.min(batchSize, free));
    int started = 0;
    List<CompletableFuture<IntentOutcome>> drives = new ArrayList<>();
    for (IntentRecord record : due) {
      IntentId id = record.id();
      if (DriveRegistry.process().isDriven(store, id)) {
        // Driven in this process already (a caller's own drive, or a wait on its timer).
        continue;
      }
      driving.incrementAndGet();
      CompletableFuture<IntentOutcome> drive;
      try {
        drive = this.drive.apply(id);
      } catch (RuntimeException | Error e) {
        driving.decrementAndGet();
        throw e;
      }
      started++;
      drives.add(drive);
      drive.whenComplete((outcome, failure) -> {
        driving.decrementAndGet();
        try {
          store.release(id);
        } catch (RuntimeException e) {
          LOG.log(Level.FINE, "releasing a claim failed; it ends with its lease", e);
        }
      });
    }
    if (outcomes != null && !drives.isEmpty()) {
      tellOutcomes(drives);
    }
    return started;
  }

  /** Tells the outcomes of one tick's drives to the listener once the last of them ended. */
  private void tellOutcomes(List<CompletableFuture<IntentOutcome>> drives) {
    CompletableFuture.allOf(drives.toArray(CompletableFuture[]::new)).whenComplete((done, e) -> {
      List<IntentOutcome> ended = new ArrayList<>(drives.size());
      for (CompletableFuture<IntentOutcome> drive : drives) {
        if (!drive.isCompletedExceptionally()) {
          ended.add(drive.join());
        }
      }
      try {
        outcomes.accept(List.copyOf(ended));
      } catch (RuntimeException failed) {
        LOG.log(Level.WARNING, "the due-work outcome listener failed", failed);
      }
    });
  }

  /** How many drives this scheduler started that have not ended yet. */
  public int driving() {
    return driving.get();
  }

  /**
   * Where the scheduler stands: {@link State#NEW} until {@link #start()}, {@link State#RUNNING}
   * while its thread runs, {@link State#STOPPED} once closed (or stopped because its client or
   * interceptor was closed), {@link State#FAILED} once an {@link Error} stopped it.
   */
  public State state() {
    if (failure != null) {
      return State.FAILED;
    }
    synchronized (lifecycle) {
      if (stopped || ended) {
        return State.STOPPED;
      }
      return thread == null ? State.NEW : State.RUNNING;
    }
  }

  /**
   * The {@link Error} that stopped the scheduler (then {@link #state()} is {@link State#FAILED});
   * empty while it runs, before it started, and after a normal stop.
   */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(failure);
  }

  /**
   * What the most recent tick threw, if it failed and no tick succeeded since: a {@link
   * StoreException}, or an unexpected {@link RuntimeException}; the scheduler went on either way.
   * Empty before the first tick and after a tick that succeeded.
   */
  public Optional<RuntimeException> lastTickFailure() {
    return Optional.ofNullable(lastTickFailure);
  }

  /** Stops the scheduler thread and waits for it to end. Idempotent. */
  @Override
  public void close() {
    Thread running;
    synchronized (lifecycle) {
      stopped = true;
      running = thread;
    }
    if (running != null && running != Thread.currentThread()) {
      running.interrupt();
      try {
        running.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void loop() {
    try {
      Thread.sleep((long) (random.nextDouble() * interval.toMillis()));
      while (!stopped) {
        if (ownerClosed.getAsBoolean()) {
          LOG.fine("the client is closed; the due-work scheduler stops");
          return;
        }
        tick();
        double factor = 1 + jitter * (2 * random.nextDouble() - 1);
        Thread.sleep(Math.max(1, (long) (interval.toMillis() * factor)));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable e) {
      fail(e);
    } finally {
      ended = true;
    }
  }

  /** One tick of the thread: claims and starts drives; survives what a tick may throw. */
  private void tick() {
    try {
      pollOnce();
      lastTickFailure = null;
    } catch (IllegalStateException e) {
      if (ownerClosed.getAsBoolean()) {
        // Closed between the check and the claim: the loop's next check stops the thread.
        return;
      }
      failedTick(e);
    } catch (StoreException e) {
      lastTickFailure = e;
      LOG.log(Level.WARNING, "claiming due intents failed; retrying at the next tick", e);
    } catch (RuntimeException e) {
      failedTick(e);
    }
  }

  private void failedTick(RuntimeException e) {
    lastTickFailure = e;
    LOG.log(Level.SEVERE, "a tick of the due-work scheduler failed unexpectedly; retrying at"
        + " the next tick", e);
    tellFailure(e);
  }

  /**
   * Records what stops the thread before anything that could fail again (an {@code
   * OutOfMemoryError} may leave no room for a log line), then logs it and tells the listener.
   */
  private void fail(Throwable e) {
    failure = e;
    try {
      LOG.log(Level.SEVERE, "the due-work scheduler stopped: " + e
          + "; no intent is driven at its due time until the process restarts or a new"
          + " scheduler is started", e);
    } catch (Throwable logging) {
      // Nothing left to report with; state() says FAILED.
    }
    tellFailure(e);
  }

  private void tellFailure(Throwable e) {
    if (onFailure == null) {
      return;
    }
    try {
      onFailure.accept(e);
    } catch (RuntimeException listener) {
      LOG.log(Level.WARNING, "the due-work failure listener failed", listener);
    }
  }

  /** Builds a {@link DueWorkScheduler}. Not thread-safe. */
  public static final class Builder {
    private final IntentStore store;
    private final Function<IntentId, CompletableFuture<IntentOutcome>> drive;
    private Duration interval = Duration.ofSeconds(1);
    private double jitter = 0.2;
    private int batchSize = 64;
    private int maxConcurrent = 64;
    private Clock clock = Clock.systemUTC();
    private Random random = new Random();
    private Consumer<List<IntentOutcome>> outcomes;
    private Consumer<Throwable> onFailure;
    private final BooleanSupplier ownerClosed;

    private Builder(IntentStore store, Function<IntentId, CompletableFuture<IntentOutcome>> drive,
        BooleanSupplier ownerClosed) {
      this.store = store;
      this.drive = drive;
      this.ownerClosed = ownerClosed;
    }

    /**
     * Time between two ticks before jitter (default 1 s).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder interval(Duration interval) {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("interval must be positive, was " + interval);
      }
      this.interval = interval;
      return this;
    }

    /**
     * Fraction of the interval each wait varies by, at random, in both directions (default 0.2).
     *
     * @throws IllegalArgumentException if not in [0, 1)
     */
    public Builder jitter(double jitter) {
      if (!(jitter >= 0 && jitter < 1)) {
        throw new IllegalArgumentException("jitter must be in [0, 1), was " + jitter);
      }
      this.jitter = jitter;
      return this;
    }

    /**
     * Most records claimed per tick (default 64).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder batchSize(int batchSize) {
      if (batchSize <= 0) {
        throw new IllegalArgumentException("batchSize must be positive, was " + batchSize);
      }
      this.batchSize = batchSize;
      return this;
    }

    /**
     * Most drives started by this scheduler running at once (default 64).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxConcurrent(int maxConcurrent) {
      if (maxConcurrent <= 0) {
        throw new IllegalArgumentException("maxConcurrent must be positive, was " + maxConcurrent);
      }
      this.maxConcurrent = maxConcurrent;
      return this;
    }

    /** The clock due times are compared with (default the system clock; use the client's). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The source of the start delay and the jitter (default a new {@link Random}). */
    public Builder random(Random random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * Told, once per tick that started drives, the outcomes of those drives when the last of them
     * ended (on the thread that ended it): for a summary such as a log line with counts. A drive
     * whose future failed (its record could not be read) is left out. Exceptions it throws are
     * caught and logged. Default: none.
     *
     * @throws NullPointerException if {@code outcomes} is null
     */
    public Builder outcomes(Consumer<List<IntentOutcome>> outcomes) {
      this.outcomes = Objects.requireNonNull(outcomes, "outcomes");
      return this;
    }

    /**
     * Told, on the scheduler thread, of each failure the scheduler logs at {@code SEVERE}: an
     * unexpected {@link RuntimeException} of one tick (the scheduler goes on), and the {@link
     * Error} that stops it (told once {@link DueWorkScheduler#state()} is {@link State#FAILED},
     * just before the thread ends). A {@link StoreException} of a tick is not told (it is logged
     * and kept as {@link DueWorkScheduler#lastTickFailure()}). Must be fast; exceptions it throws
     * are caught and logged. Default: none.
     *
     * @throws NullPointerException if {@code onFailure} is null
     */
    public Builder onFailure(Consumer<Throwable> onFailure) {
      this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
      return this;
    }

    /** Returns the scheduler, not started. */
    public DueWorkScheduler build() {
      return new DueWorkScheduler(this);
    }
  }
}
