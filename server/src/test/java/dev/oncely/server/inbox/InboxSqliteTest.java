package dev.oncely.server.inbox;

import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.persistence.SqliteIntentStore;
import dev.oncely.persistence.StoreOptions;
import dev.oncely.server.FileBytes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.io.TempDir;

/** The inbox contract on SQLite files; every reopen reads the files again. */
class InboxSqliteTest extends InboxContract {
  @TempDir Path dir;
  private final Map<IntentStore, Opened> files = new IdentityHashMap<>();

  private record Opened(Path file, @Nullable StoreEncryption encryption) {}

  @Override
  IntentStore openStore(@Nullable StoreEncryption encryption) throws Exception {
    Path store = Files.createDirectories(dir.resolve("store-" + files.size()));
    return open(new Opened(store.resolve("inbox.db"), encryption));
  }

  private IntentStore open(Opened opened) {
    StoreOptions.Builder options = StoreOptions.builder();
    if (opened.encryption() != null) {
      options.encryption(opened.encryption());
    }
    IntentStore store = SqliteIntentStore.open(opened.file(), options.build());
    files.put(store, opened);
    return store;
  }

  @Override
  IntentStore reopen(IntentStore store) {
    store.close();
    return open(files.get(store));
  }

  @Override
  byte[] bytesAtRest() throws Exception {
    return FileBytes.under(dir);
  }
}
