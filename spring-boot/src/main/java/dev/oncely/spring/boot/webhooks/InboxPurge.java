package dev.oncely.spring.boot.webhooks;

import dev.oncely.server.inbox.Inbox;
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
 * Purges the handled inbox messages whose source's retention ended, while the application context
 * runs: every {@code interval}, one {@link Inbox#purgeExpired(java.time.Instant, Duration)} in
 * steps of {@code step} of expiry time, so one write never holds the store for more than what
 * expired in one step. Queued, processing and dead messages are never purged. A failing purge is
 * logged and tried again at the next interval. One daemon thread, started when the context has
 * refreshed and stopped when it stops (before the store closes).
 */
public final class InboxPurge implements SmartLifecycle {
  private static final Logger LOG = Logger.getLogger(InboxPurge.class.getName());

  private final Inbox inbox;
  private final Duration interval;
  private final Duration step;
  private final Clock clock;
  private @Nullable ScheduledExecutorService scheduler;

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
    this.inbox = Objects.requireNonNull(inbox, "inbox");
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
   * @return how many messages were removed
   * @throws dev.oncely.client.StoreException if the store failed
   */
  public int purgeNow() {
    return inbox.purgeExpired(clock.instant(), step);
  }

  private void tick() {
    try {
      int removed = purgeNow();
      if (removed > 0) {
        LOG.fine(() -> "purged " + removed + " handled inbox messages past their retention");
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "purging handled inbox messages failed; tried again in " + interval,
          e);
    }
  }

  /** Starts the purge thread; the first purge runs one interval from now. */
  @Override
  public synchronized void start() {
    if (scheduler != null) {
      return;
    }
    ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "oncely-inbox-purge");
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
