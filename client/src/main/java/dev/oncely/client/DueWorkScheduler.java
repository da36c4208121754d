package dev.oncely.client;

import dev.oncely.client.internal.DriveRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
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
 * before the client; a scheduler left running stops by itself at the first tick that finds due
 * work after the client was closed. A failing store is logged and retried at
 * the next tick; it never stops the scheduler.
 *
 * <p>Defaults: interval 1 s, jitter 20 %, batch size 64, 64 concurrent drives, the system clock.
 * Thread-safe.
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
  private final AtomicInteger driving = new AtomicInteger();
  private final Object lifecycle = new Object();
  private Thread thread;
  private volatile boolean stopped;

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
  }

  /**
   * Returns a builder for a scheduler driving {@code client}'s store.
   *
   * @throws NullPointerException if {@code client} is null
   */
  public static Builder builder(IdempotentClient client) {
    Objects.requireNonNull(client, "client");
    return new Builder(client.store(), client::resume);
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
    return new Builder(interceptor.store(), id -> interceptor.resume(appClient, id));
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
      } catch (RuntimeException e) {
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
        try {
          pollOnce();
        } catch (IllegalStateException e) {
          LOG.fine("the client is closed; the due-work scheduler stops");
          return;
        } catch (StoreException e) {
          LOG.log(Level.WARNING, "claiming due intents failed; retrying at the next tick", e);
        }
        double factor = 1 + jitter * (2 * random.nextDouble() - 1);
        Thread.sleep(Math.max(1, (long) (interval.toMillis() * factor)));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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

    private Builder(IntentStore store, Function<IntentId, CompletableFuture<IntentOutcome>> drive) {
      this.store = store;
      this.drive = drive;
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

    /** Returns the scheduler, not started. */
    public DueWorkScheduler build() {
      return new DueWorkScheduler(this);
    }
  }
}
