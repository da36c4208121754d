package dev.oncely.benchmarks.internal;

import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.IntentStore;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Passes every call to a real store and counts the durable writes ({@code create} and
 * {@code compareAndSet}), so the harness can see how many commits an intent pays before its first
 * byte is sent.
 */
public final class CountingStore implements IntentStore {
  private final IntentStore delegate;
  private final AtomicLong writes = new AtomicLong();

  /** Counts the writes made through this wrapper to {@code delegate}. */
  public CountingStore(IntentStore delegate) {
    this.delegate = delegate;
  }

  /** Writes made so far. */
  public long writes() {
    return writes.get();
  }

  @Override
  public void create(IntentRecord record) {
    delegate.create(record);
    writes.incrementAndGet();
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    boolean done = delegate.compareAndSet(expected, replacement);
    writes.incrementAndGet();
    return done;
  }

  @Override
  public Optional<IntentRecord> get(IntentId id) {
    return delegate.get(id);
  }

  @Override
  public Optional<IntentRecord> findByBusinessId(String scope, String operation, String businessId) {
    return delegate.findByBusinessId(scope, operation, businessId);
  }

  @Override
  public List<IntentRecord> listUnfinished() {
    return delegate.listUnfinished();
  }

  @Override
  public int purgeExpired(Instant now) {
    return delegate.purgeExpired(now);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
