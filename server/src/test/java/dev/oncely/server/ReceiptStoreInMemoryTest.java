package dev.oncely.server;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.StoreEncryption;
import org.jspecify.annotations.Nullable;

/** The receipt store contract on the client's {@link InMemoryIntentStore}. */
class ReceiptStoreInMemoryTest extends ReceiptStoreContract {
  @Override
  IntentStore openStore(@Nullable StoreEncryption encryption) {
    return new InMemoryIntentStore();
  }

  @Override
  boolean keepsBytesAtRest() {
    return false;
  }
}
