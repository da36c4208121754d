package dev.oncely.cli;

import dev.oncely.client.IntentId;
import java.util.Optional;

/**
 * Optional capability of a store a {@link StoreOpener} returns, for stores shared by a fleet that
 * hand each intent to one live instance at a time (leases) instead of locking the whole store:
 * says who drives a record right now, so a refused write can be explained.
 */
public interface LeaseView {
  /**
   * A description of the live lease another instance holds on {@code id} (owner and end), or
   * empty when nobody else holds one.
   *
   * @throws dev.oncely.client.StoreException if the engine fails
   */
  Optional<String> liveLeaseOfAnother(IntentId id);
}
