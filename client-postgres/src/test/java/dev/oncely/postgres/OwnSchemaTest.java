package dev.oncely.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.IntentStoreContract;
import java.sql.Connection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A store in a PostgreSQL schema of its own, beside the default store of the same database. */
class OwnSchemaTest {
  static PgTestDatabase db;

  @BeforeAll
  static void database() {
    db = PgTestDatabase.create();
  }

  @AfterAll
  static void closeDatabase() {
    db.close();
  }

  @Test
  void two_stores_in_two_schemas_commit_or_roll_back_in_one_transaction() throws Exception {
    try (PostgresIntentStore own = PostgresIntentStore.builder(db.pool).schema("tx_own")
            .migrate(true).build();
        PostgresIntentStore neighbour = PostgresIntentStore.builder(db.pool).build()) {
      IntentRecord held = IntentStoreContract.newRecord("s", "op", "k").toBuilder()
          .state(IntentState.IN_FLIGHT).build();
      own.create(held);
      IntentRecord next = held.successor().state(IntentState.PENDING).reason("tx").build();
      IntentRecord rolledBack = IntentStoreContract.newRecord("s", "op", "rolled-back");
      IntentRecord committed = IntentStoreContract.newRecord("s", "op", "committed");
      try (Connection c = db.pool.getConnection()) {
        c.setAutoCommit(false);
        neighbour.createInTransaction(c, rolledBack);
        assertThat(own.compareAndSetInTransaction(c, held, next)).isTrue();
        c.rollback();
        assertThat(neighbour.get(rolledBack.id())).isEmpty();
        assertThat(own.get(held.id())).contains(held);

        neighbour.createInTransaction(c, committed);
        assertThat(own.compareAndSetInTransaction(c, held, next)).isTrue();
        c.commit();
        c.setAutoCommit(true);
        assertThat(neighbour.get(committed.id())).contains(committed);
        assertThat(own.get(held.id())).contains(next);
      }
      assertThat(neighbour.get(held.id())).as("the neighbour never saw the other's rows").isEmpty();
      assertThat(own.get(committed.id())).isEmpty();
    }
  }

  @Test
  void a_schema_that_was_never_migrated_is_refused_naming_the_call_that_applies_it() {
    assertThatThrownBy(() -> PostgresIntentStore.builder(db.pool).schema("never_applied").build())
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("never_applied.oncely_intent is missing")
        .hasMessageContaining("PostgresIntentStore.migrate(dataSource, \"never_applied\")");
  }

  @Test
  void migrating_a_schema_twice_applies_each_version_once() {
    assertThat(PostgresIntentStore.migrate(db.pool, "twice")).isEqualTo(2);
    assertThat(PostgresIntentStore.migrate(db.pool, "twice")).isZero();
  }

  @Test
  void a_schema_name_that_would_need_quoting_is_refused() {
    for (String bad : new String[] {"Upper", "1st", "a-b", "a;drop table x", "", "a".repeat(64)}) {
      assertThatThrownBy(() -> PostgresIntentStore.builder(db.pool).schema(bad))
          .as(bad).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> PostgresIntentStore.migrate(db.pool, bad))
          .as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }
}
