package dev.oncely.persistence;

import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.IntentStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The store contract against a real SQLite file; every reopen goes through the file. */
class SqliteIntentStoreContractTest extends IntentStoreContract {
  @TempDir Path dir;

  StoreOptions options() {
    return StoreOptions.defaults();
  }

  @Override
  protected IntentStore openStore() {
    return SqliteIntentStore.open(dir.resolve("intents.db"), options());
  }

  @Override
  protected IntentStore reopen(IntentStore store) {
    store.close();
    return openStore();
  }
}
