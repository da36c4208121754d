package dev.oncely.spring.boot.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntBiFunction;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * The one schedule behind the starter's purges of finished records: every {@code interval}, one
 * stepped purge of what expired by the clock's now; a failing purge is logged and tried again at
 * the next interval. One daemon thread between {@link #start()} and {@link #stop()}. Not an API:
 * the public lifecycle beans ({@code ReceiptPurge}, {@code InboxPurge}) delegate to it.
 */
public final class PeriodicPurge {
  private final ToIntBiFunction<Instant, Duration> purge;
  private final String what;
  private final String threadName;
  private final Logger log;
  private final Duration interval;
  private final Duration step;
  private final Clock clock;
  private @Nullable ScheduledExecutorService scheduler;

  /**
   * A schedule of {@code purge(now, step)} every {@code interval}.
   *
   * @param purge the stepped purge: removes what expired by its first argument, one step of its
   *     second at a time, and returns how many records it removed
   * @param what what is purged, for the log ("finished receipts")
   * @param threadName the name of the purge thread
   * @param logger the logger of the bean that owns the schedule
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code interval} or {@code step} is not positive
   */
  public PeriodicPurge(ToIntBiFunction<Instant, Duration> purge, String what, String threadName,
      Logger logger, Duration interval, Duration step, Clock clock) {
    this.purge = Objects.requireNonNull(purge, "purge");
    this.what = Objects.requireNonNull(what, "what");
    this.threadName = Objects.requireNonNull(threadName, "threadName");
    this.log = Objects.requireNonNull(logger, "logger");
    this.interval = positive("interval", interval);
    this.step = positive("step", step);
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  private static Duration positive(String what, Duration value) {
    Objects.requireNonNull(value, what);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, was " + value);
    }
    return value;
  }

  /** Purges what expired by now, in steps, and returns how many records were removed. */
  public int purgeNow() {
    return purge.applyAsInt(clock.instant(), step);
  }

  private void tick() {
    try {
      int removed = purgeNow();
      if (removed > 0) {
        log.fine(() -> "purged " + removed + " " + what + " past their retention");
      }
    } catch (RuntimeException e) {
      log.log(Level.WARNING, "purging " + what + " failed; tried again in " + interval, e);
    }
  }

  /** Starts the purge thread; the first purge runs one interval from now. Idempotent. */
  public synchronized void start() {
    if (scheduler != null) {
      return;
    }
    ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
    long millis = Math.max(1, interval.toMillis());
    s.scheduleWithFixedDelay(this::tick, millis, millis, TimeUnit.MILLISECONDS);
    scheduler = s;
  }

  /** Stops the purge thread and waits briefly for a purge under way. Idempotent. */
  public synchronized void stop() {
    ScheduledExecutorService s = scheduler;
    scheduler = null;
    if (s != null) {
      s.shutdownNow();
      try {
        s.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Whether the purge thread runs. */
  public synchronized boolean isRunning() {
    return scheduler != null;
  }
}
