package dev.oncely.spring.boot.server;

import dev.oncely.server.ReceiptStore;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Purges the finished receipts (completed, released) whose retention ended, while the
 * application context runs: every {@code interval}, one {@link ReceiptStore#purgeExpired(
 * java.time.Instant, Duration)} in steps of {@code step} of expiry time, so one write never holds
 * the store for more than what finished in one step. Processing and pending receipts are never
 * purged. A failing purge is logged and tried again at the next interval. One daemon thread,
 * started when the context has refreshed and stopped when it stops (before the store closes).
 */
public final class ReceiptPurge implements SmartLifecycle {
  private static final Logger LOG = Logger.getLogger(ReceiptPurge.class.getName());

  private final ReceiptStore receipts;
  private final Duration interval;
  private final Duration step;
  private final Clock clock;
  private @Nullable ScheduledExecutorService scheduler;

  /**
   * Purges {@code receipts}.
   *
   * @param receipts the receipt store
   * @param interval the time between two purges, positive
   * @param step the span of expiry time one write purges, positive
   * @param clock the clock that says which receipts expired
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code interval} or {@code step} is not positive
   */
  public ReceiptPurge(ReceiptStore receipts, Duration interval, Duration step, Clock clock) {
    this.receipts = Objects.requireNonNull(receipts, "receipts");
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

  /**
   * Purges what expired by now, in steps.
   *
   * @return how many receipts were removed
   * @throws dev.oncely.client.StoreException if the store failed
   */
  public int purgeNow() {
    return receipts.purgeExpired(clock.instant(), step);
  }

  private void tick() {
    try {
      int removed = purgeNow();
      if (removed > 0) {
        LOG.fine(() -> "purged " + removed + " finished receipts past their retention");
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "purging finished receipts failed; tried again in " + interval, e);
    }
  }

  /** Starts the purge thread; the first purge runs one interval from now. */
  @Override
  public synchronized void start() {
    if (scheduler != null) {
      return;
    }
    ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "oncely-receipt-purge");
      t.setDaemon(true);
      return t;
    });
    long millis = Math.max(1, interval.toMillis());
    s.scheduleWithFixedDelay(this::tick, millis, millis, TimeUnit.MILLISECONDS);
    scheduler = s;
  }

  /** Stops the purge thread and waits briefly for a purge under way. */
  @Override
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

  @Override
  public synchronized boolean isRunning() {
    return scheduler != null;
  }
}
