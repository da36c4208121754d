package dev.oncely.server.inbox;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.StoreEncryption;
import org.jspecify.annotations.Nullable;

/** The inbox contract on the in-memory store (tests, and the reference of the engines). */
class InboxInMemoryTest extends InboxContract {
  @Override
  IntentStore openStore(@Nullable StoreEncryption encryption) {
    return new InMemoryIntentStore();
  }

  @Override
  boolean durable() {
    return false;
  }
}
