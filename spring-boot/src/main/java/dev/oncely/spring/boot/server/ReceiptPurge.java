package dev.oncely.spring.boot.server;

import dev.oncely.server.ReceiptStore;
import dev.oncely.spring.boot.internal.PeriodicPurge;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.logging.Logger;
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

  private final PeriodicPurge schedule;

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
    Objects.requireNonNull(receipts, "receipts");
    this.schedule = new PeriodicPurge(receipts::purgeExpired, "finished receipts",
        "oncely-receipt-purge", LOG, interval, step, clock);
  }

  /**
   * Purges what expired by now, in steps.
   *
   * @return how many receipts were removed
   * @throws dev.oncely.client.StoreException if the store failed
   */
  public int purgeNow() {
    return schedule.purgeNow();
  }

  /** Starts the purge thread; the first purge runs one interval from now. */
  @Override
  public void start() {
    schedule.start();
  }

  /** Stops the purge thread and waits briefly for a purge under way. */
  @Override
  public void stop() {
    schedule.stop();
  }

  @Override
  public boolean isRunning() {
    return schedule.isRunning();
  }
}
