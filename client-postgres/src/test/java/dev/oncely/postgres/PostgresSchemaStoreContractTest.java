package dev.oncely.postgres;

import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.IntentStoreContract;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract for a store in a PostgreSQL schema of its own, beside a default store in the
 * same database that holds records under the keys the contract uses: a statement that missed the
 * schema would read or collide with the neighbour's rows and break the contract.
 */
class PostgresSchemaStoreContractTest extends IntentStoreContract {
  static PgTestDatabase db;

  @BeforeAll
  static void database() {
    db = PgTestDatabase.create();
    PostgresIntentStore.migrate(db.pool, "own_store");
    try (PostgresIntentStore neighbour = PostgresIntentStore.builder(db.pool).build()) {
      for (String scope : new String[] {"tenant-a", "tenant-b", "s"}) {
        for (String operation : new String[] {"create-payment", "issue-refund", "op"}) {
          for (String key : new String[] {"k", "k1", "k2", "k3", "same-key"}) {
            neighbour.create(newRecord(scope, operation, key));
          }
        }
      }
    }
  }

  @AfterAll
  static void closeDatabase() {
    db.close();
  }

  @Override
  protected IntentStore openStore() {
    try (Connection c = db.pool.getConnection(); Statement st = c.createStatement()) {
      st.execute("TRUNCATE own_store.oncely_intent");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return PostgresIntentStore.builder(db.pool).schema("own_store").build();
  }

  @Override
  protected IntentStore reopen(IntentStore store) {
    store.close();
    return PostgresIntentStore.builder(db.pool).schema("own_store").build();
  }
}
