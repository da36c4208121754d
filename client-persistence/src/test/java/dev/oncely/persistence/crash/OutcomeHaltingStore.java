package dev.oncely.persistence.crash;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.persistence.internal.CommitHalts;

/**
 * A real durable store with one crash point in front of it: the JVM halts (status {@value
 * CommitHalts#HALT_STATUS}, like SIGKILL) when the client asks to compare-and-set the record of
 * business id {@code haltBusinessId} to a terminal state, i.e. after the server's answer was read
 * and before the outcome is written. Every other call goes straight to the real store.
 */
final class OutcomeHaltingStore extends ForwardingIntentStore {
  private final String haltBusinessId;

  OutcomeHaltingStore(IntentStore store, String haltBusinessId) {
    super(store);
    this.haltBusinessId = haltBusinessId;
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    if (replacement.state().isTerminal() && haltBusinessId.equals(replacement.businessId())) {
      Runtime.getRuntime().halt(CommitHalts.HALT_STATUS);
    }
    return super.compareAndSet(expected, replacement);
  }
}
