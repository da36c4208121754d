package dev.oncely.server.inbox;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.ForwardingIntentStore;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A real store seen through a decorator that tells the test what the inbox wrote: each stored
 * compare-and-set's replacement (a signal to wait on, such as a lease renewal), how many
 * compare-and-sets were asked for, and the expiry cut of each purge.
 */
final class WatchedStore extends ForwardingIntentStore {
  private final BlockingQueue<IntentRecord> written = new LinkedBlockingQueue<>();
  private final AtomicInteger compareAndSets = new AtomicInteger();
  private final List<Instant> purgeCuts = new CopyOnWriteArrayList<>();

  WatchedStore(IntentStore delegate) {
    super(delegate);
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    compareAndSets.incrementAndGet();
    boolean stored = super.compareAndSet(expected, replacement);
    if (stored) {
      written.add(replacement);
    }
    return stored;
  }

  @Override
  public int purgeExpired(Instant now) {
    purgeCuts.add(now);
    return super.purgeExpired(now);
  }

  /** Waits for a stored replacement that {@code wanted} accepts; fails after 30 s. */
  IntentRecord awaitWrite(Predicate<IntentRecord> wanted) throws InterruptedException {
    while (true) {
      IntentRecord r = written.poll(30, TimeUnit.SECONDS);
      if (r == null) {
        throw new AssertionError("the awaited write never came");
      }
      if (wanted.test(r)) {
        return r;
      }
    }
  }

  /** How many compare-and-sets were asked for, stored or refused. */
  int compareAndSets() {
    return compareAndSets.get();
  }

  /** The time of each {@code purgeExpired} call, in call order. */
  List<Instant> purgeCuts() {
    return List.copyOf(purgeCuts);
  }
}
