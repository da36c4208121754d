package dev.oncely.server;

import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.persistence.SqliteIntentStore;
import dev.oncely.persistence.StoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.io.TempDir;

/** The receipt store contract on SQLite files; every reopen reads the files again. */
class ReceiptStoreSqliteTest extends ReceiptStoreContract {
  @TempDir Path dir;
  private final Map<IntentStore, Path> files = new IdentityHashMap<>();

  @Override
  IntentStore openStore(@Nullable StoreEncryption encryption) throws Exception {
    Path store = Files.createDirectories(dir.resolve("store-" + files.size()));
    return open(store.resolve("receipts.db"), encryption);
  }

  private IntentStore open(Path file, @Nullable StoreEncryption encryption) {
    StoreOptions.Builder options = StoreOptions.builder();
    if (encryption != null) {
      options.encryption(encryption);
    }
    IntentStore store = SqliteIntentStore.open(file, options.build());
    files.put(store, file);
    return store;
  }

  @Override
  IntentStore reopen(IntentStore store) {
    store.close();
    return open(files.get(store), null);
  }

  @Override
  byte[] bytesAtRest() throws Exception {
    return FileBytes.under(dir);
  }
}
