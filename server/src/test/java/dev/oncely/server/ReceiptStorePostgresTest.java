package dev.oncely.server;

import com.zaxxer.hikari.HikariDataSource;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.ReceiptPostgres;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The receipt store contract on a real PostgreSQL server (one per class), a fresh database per
 * store; every reopen is a new store instance on the same database.
 */
class ReceiptStorePostgresTest extends ReceiptStoreContract {
  private static ReceiptPostgres postgres;
  private final Map<IntentStore, HikariDataSource> databases = new IdentityHashMap<>();
  private final List<HikariDataSource> pools = new ArrayList<>();

  @BeforeAll
  static void startServer() {
    postgres = ReceiptPostgres.start();
  }

  @AfterAll
  static void stopServer() {
    postgres.close();
  }

  @Override
  void afterStoresClosed() {
    pools.forEach(HikariDataSource::close);
  }

  @Override
  IntentStore openStore(@Nullable StoreEncryption encryption) {
    HikariDataSource database = postgres.newDatabase();
    pools.add(database);
    return open(database, encryption);
  }

  private IntentStore open(HikariDataSource database, @Nullable StoreEncryption encryption) {
    PostgresIntentStore.Builder b = PostgresIntentStore.builder(database);
    if (encryption != null) {
      b.encryption(encryption);
    }
    IntentStore store = b.build();
    databases.put(store, database);
    return store;
  }

  @Override
  IntentStore reopen(IntentStore store) {
    store.close();
    return open(databases.get(store), null);
  }

  @Override
  byte[] bytesAtRest() throws Exception {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (HikariDataSource database : pools) {
      all.write(ReceiptPostgres.bytesAtRest(database, "oncely_intent"));
    }
    return all.toByteArray();
  }
}
