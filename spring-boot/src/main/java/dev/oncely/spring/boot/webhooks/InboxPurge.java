package dev.oncely.spring.boot.webhooks;

import dev.oncely.server.inbox.Inbox;
import dev.oncely.spring.boot.internal.PeriodicPurge;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.logging.Logger;
import org.springframework.context.SmartLifecycle;

/**
 * Purges the handled inbox messages whose source's retention ended, while the application context
 * runs: every {@code interval}, one {@link Inbox#purgeExpired(java.time.Instant, Duration)} in
 * steps of {@code step} of expiry time, so one write never holds the store for more than what
 * expired in one step. Queued, processing and dead messages are never purged. A failing purge is
 * logged and tried again at the next interval. One daemon thread, started when the context has
 * refreshed and stopped when it stops (before the store closes).
 */
public final class InboxPurge implements SmartLifecycle {
  private static final Logger LOG = Logger.getLogger(InboxPurge.class.getName());

  private final PeriodicPurge schedule;

  /**
   * Purges {@code inbox}.
   *
   * @param inbox the inbox
   * @param interval the time between two purges, positive
   * @param step the span of expiry time one write purges, positive
   * @param clock the clock that says which messages expired
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code interval} or {@code step} is not positive
   */
  public InboxPurge(Inbox inbox, Duration interval, Duration step, Clock clock) {
    Objects.requireNonNull(inbox, "inbox");
    this.schedule = new PeriodicPurge(inbox::purgeExpired, "handled inbox messages",
        "oncely-inbox-purge", LOG, interval, step, clock);
  }

  /**
   * Purges what expired by now, in steps.
   *
   * @return how many messages were removed
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
