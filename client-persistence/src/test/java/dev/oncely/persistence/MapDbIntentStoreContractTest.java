package dev.oncely.persistence;

import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.IntentStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The store contract against real MapDB files; every reopen goes through the files. */
class MapDbIntentStoreContractTest extends IntentStoreContract {
  @TempDir Path dir;

  StoreOptions options() {
    return StoreOptions.defaults();
  }

  @Override
  protected IntentStore openStore() {
    return MapDbIntentStore.open(dir.resolve("intents.db"), options());
  }

  @Override
  protected IntentStore reopen(IntentStore store) {
    store.close();
    return openStore();
  }
}
