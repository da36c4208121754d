package dev.oncely.client.spi;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.UnfinishedEntry;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * An {@link IntentStore} that passes every call to another store: extend it and override only the
 * calls a decorator changes (metrics, tracing, fault injection in tests). It adds no state and no
 * guarantee of its own; the delegate's contract is the decorator's contract.
 */
public abstract class ForwardingIntentStore implements IntentStore {
  private final IntentStore delegate;

  /**
   * Forwards to {@code delegate}.
   *
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingIntentStore(IntentStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The store every call goes to. */
  protected final IntentStore delegate() {
    return delegate;
  }

  /** The delegate's underlying store: a decorator shares the drives of the store it decorates. */
  @Override
  public IntentStore underlying() {
    return delegate.underlying();
  }

  @Override
  public void create(IntentRecord record) {
    delegate.create(record);
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    return delegate.compareAndSet(expected, replacement);
  }

  @Override
  public Optional<IntentRecord> get(IntentId id) {
    return delegate.get(id);
  }

  @Override
  public Optional<IntentRecord> findByBusinessId(
      String scope, String operation, String businessId) {
    return delegate.findByBusinessId(scope, operation, businessId);
  }

  @Override
  public List<IntentRecord> listUnfinished() {
    return delegate.listUnfinished();
  }

  @Override
  public List<UnfinishedEntry> listUnfinishedIds() {
    return delegate.listUnfinishedIds();
  }

  @Override
  public void forEachFinished(Consumer<IntentRecord> visitor) {
    delegate.forEachFinished(visitor);
  }

  @Override
  public int purgeExpired(Instant now) {
    return delegate.purgeExpired(now);
  }

  @Override
  public List<IntentRecord> claimDue(Instant now, int limit) {
    return delegate.claimDue(now, limit);
  }

  @Override
  public void release(IntentId id) {
    delegate.release(id);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
