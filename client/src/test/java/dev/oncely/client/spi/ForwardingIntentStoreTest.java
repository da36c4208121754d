package dev.oncely.client.spi;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentStore;

/** A forwarding store changes nothing: it passes the whole store contract over a real store. */
class ForwardingIntentStoreTest extends IntentStoreContract {
  @Override
  protected IntentStore openStore() {
    return new ForwardingIntentStore(new InMemoryIntentStore()) {};
  }
}
