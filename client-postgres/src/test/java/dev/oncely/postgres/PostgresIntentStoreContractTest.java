package dev.oncely.postgres;

import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.IntentStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The store contract against a real PostgreSQL server; every reopen is a new store instance. */
class PostgresIntentStoreContractTest extends IntentStoreContract {
  static PgTestDatabase db;

  @BeforeAll
  static void database() {
    db = PgTestDatabase.create();
  }

  @AfterAll
  static void closeDatabase() {
    db.close();
  }

  PostgresIntentStore.Builder builder() {
    return PostgresIntentStore.builder(db.pool);
  }

  @Override
  protected IntentStore openStore() {
    db.truncate();
    return builder().build();
  }

  @Override
  protected IntentStore reopen(IntentStore store) {
    store.close();
    return builder().build();
  }
}
