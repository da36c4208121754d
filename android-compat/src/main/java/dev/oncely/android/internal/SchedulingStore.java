package dev.oncely.android.internal;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.ForwardingIntentStore;
import java.time.Instant;

/**
 * The store as the client sees it on Android: every write that returned asks the
 * {@link ResumeScheduler} to bring the background job up to date, so the job always matches what
 * is durably unfinished.
 */
public final class SchedulingStore extends ForwardingIntentStore {
  private final ResumeScheduler scheduler;

  /** Wraps {@code store}; {@code scheduler} must read the same store. */
  public SchedulingStore(IntentStore store, ResumeScheduler scheduler) {
    super(store);
    this.scheduler = scheduler;
  }

  @Override
  public void create(IntentRecord record) {
    super.create(record);
    scheduler.request();
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    boolean replaced = super.compareAndSet(expected, replacement);
    if (replaced) {
      scheduler.request();
    }
    return replaced;
  }

  @Override
  public int purgeExpired(Instant now) {
    int purged = super.purgeExpired(now);
    if (purged > 0) {
      scheduler.request();
    }
    return purged;
  }
}
