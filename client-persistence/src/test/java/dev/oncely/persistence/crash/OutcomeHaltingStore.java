package dev.oncely.persistence.crash;

import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.IntentStore;
import dev.oncely.persistence.internal.CommitCrashHook;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A real durable store with one crash point in front of it: the JVM halts (status {@value
 * CommitCrashHook#HALT_STATUS}, like SIGKILL) when the client asks to compare-and-set the record of
 * business id {@code haltBusinessId} to a terminal state, i.e. after the server's answer was read
 * and before the outcome is written. Every other call goes straight to the real store.
 */
final class OutcomeHaltingStore implements IntentStore {
  private final IntentStore store;
  private final String haltBusinessId;

  OutcomeHaltingStore(IntentStore store, String haltBusinessId) {
    this.store = store;
    this.haltBusinessId = haltBusinessId;
  }

  @Override
  public void create(IntentRecord record) {
    store.create(record);
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    if (replacement.state().isTerminal() && haltBusinessId.equals(replacement.businessId())) {
      Runtime.getRuntime().halt(CommitCrashHook.HALT_STATUS);
    }
    return store.compareAndSet(expected, replacement);
  }

  @Override
  public Optional<IntentRecord> get(IntentId id) {
    return store.get(id);
  }

  @Override
  public Optional<IntentRecord> findByBusinessId(String scope, String operation,
      String businessId) {
    return store.findByBusinessId(scope, operation, businessId);
  }

  @Override
  public List<IntentRecord> listUnfinished() {
    return store.listUnfinished();
  }

  @Override
  public int purgeExpired(Instant now) {
    return store.purgeExpired(now);
  }

  @Override
  public void close() {
    store.close();
  }
}
