package dev.oncely.spring.boot.webhooks;

import dev.oncely.client.IntentStore;
import java.util.Objects;

/**
 * The inbox's own store as a bean: an {@link IntentStore} that is not itself a bean of that type,
 * so it never competes with the client's store where an {@code IntentStore} is injected. The
 * starter opens it from {@code oncely.webhooks.store.*}; a bean of this type of the application's
 * replaces it. Closing it (with the context, after the inbox) closes the store.
 */
public final class OncelyInboxStore implements AutoCloseable {
  private final IntentStore store;

  /**
   * Holds {@code store} for the inbox.
   *
   * @param store a store of the inbox's own: never the client's intent store or the receipts'
   * @throws NullPointerException if {@code store} is null
   */
  public OncelyInboxStore(IntentStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /**
   * The store the inbox keeps its messages in.
   *
   * @return the store
   */
  public IntentStore intentStore() {
    return store;
  }

  /** Closes the store. */
  @Override
  public void close() {
    store.close();
  }
}
