package dev.oncely.benchmarks.internal;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.ForwardingIntentStore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Passes every call to a real store and counts the durable writes ({@code create} and
 * {@code compareAndSet}), so the harness can see how many commits an intent pays before its first
 * byte is sent.
 */
public final class CountingStore extends ForwardingIntentStore {
  private final AtomicLong writes = new AtomicLong();

  /** Counts the writes made through this wrapper to {@code delegate}. */
  public CountingStore(IntentStore delegate) {
    super(delegate);
  }

  /** Writes made so far. */
  public long writes() {
    return writes.get();
  }

  @Override
  public void create(IntentRecord record) {
    super.create(record);
    writes.incrementAndGet();
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    boolean done = super.compareAndSet(expected, replacement);
    writes.incrementAndGet();
    return done;
  }
}
