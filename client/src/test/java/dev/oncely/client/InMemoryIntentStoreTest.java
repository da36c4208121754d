package dev.oncely.client;

import dev.oncely.client.spi.IntentStoreContract;

class InMemoryIntentStoreTest extends IntentStoreContract {
  @Override
  protected IntentStore openStore() {
    return new InMemoryIntentStore();
  }
}
