package dev.oncely.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.spi.IntentStoreContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A record changed in the app's own transaction, beside its business row. */
class CompareAndSetInTransactionTest {
  static PgTestDatabase db;

  PostgresIntentStore store;

  @BeforeAll
  static void database() throws SQLException {
    db = PgTestDatabase.create();
    try (Connection c = db.pool.getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE orders (id text PRIMARY KEY)");
    }
  }

  @AfterAll
  static void closeDatabase() {
    db.close();
  }

  @BeforeEach
  void start() throws SQLException {
    db.truncate();
    try (Connection c = db.pool.getConnection(); Statement st = c.createStatement()) {
      st.execute("TRUNCATE orders");
    }
    store = PostgresIntentStore.builder(db.pool).owner("a").lease(Duration.ofMinutes(5)).build();
  }

  @AfterEach
  void stop() {
    store.close();
  }

  private static IntentRecord inFlight(String key) {
    return IntentStoreContract.newRecord("s", "op", key).toBuilder()
        .state(IntentState.IN_FLIGHT).build();
  }

  private static void insertOrder(Connection c, String id) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("INSERT INTO orders (id) VALUES (?)")) {
      st.setString(1, id);
      st.executeUpdate();
    }
  }

  private static int orders() throws SQLException {
    try (Connection c = db.pool.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM orders")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  void the_change_is_visible_to_others_only_after_the_callers_commit() throws Exception {
    IntentRecord created = inFlight("k");
    store.create(created);
    IntentRecord next = created.successor().state(IntentState.PENDING).reason("in tx").build();
    try (Connection c = db.pool.getConnection()) {
      c.setAutoCommit(false);
      insertOrder(c, "o1");
      assertThat(store.compareAndSetInTransaction(c, created, next)).isTrue();
      assertThat(store.get(created.id())).as("not committed yet").contains(created);
      c.commit();
      c.setAutoCommit(true);
    }
    assertThat(store.get(created.id())).contains(next);
    assertThat(orders()).isEqualTo(1);
  }

  @Test
  void a_rollback_leaves_the_old_revision_and_the_next_change_expects_it() throws Exception {
    IntentRecord created = inFlight("k");
    store.create(created);
    IntentRecord next = created.successor().state(IntentState.COMPLETED).build();
    try (Connection c = db.pool.getConnection()) {
      c.setAutoCommit(false);
      insertOrder(c, "o1");
      assertThat(store.compareAndSetInTransaction(c, created, next)).isTrue();
      c.rollback();
      c.setAutoCommit(true);
    }
    assertThat(store.get(created.id())).contains(created);
    assertThat(orders()).isZero();
    IntentRecord other = created.successor().state(IntentState.PENDING).reason("b").build();
    assertThat(store.compareAndSet(created, other)).isTrue();
    assertThat(store.get(created.id())).contains(other);
  }

  @Test
  void a_stale_expected_revision_is_refused_and_the_callers_transaction_stays_usable()
      throws Exception {
    IntentRecord created = inFlight("k");
    store.create(created);
    IntentRecord moved = created.successor().state(IntentState.PENDING).reason("moved").build();
    assertThat(store.compareAndSet(created, moved)).isTrue();
    IntentRecord late = created.successor().state(IntentState.COMPLETED).build();
    try (Connection c = db.pool.getConnection()) {
      c.setAutoCommit(false);
      insertOrder(c, "o1");
      assertThat(store.compareAndSetInTransaction(c, created, late)).isFalse();
      insertOrder(c, "o2");
      c.commit();
      c.setAutoCommit(true);
    }
    assertThat(store.get(created.id())).contains(moved);
    assertThat(orders()).isEqualTo(2);
  }

  @Test
  void another_owners_live_lease_refuses_the_change_as_compare_and_set_does() throws Exception {
    try (PostgresIntentStore b = PostgresIntentStore.builder(db.pool).owner("b")
        .lease(Duration.ofMinutes(5)).build()) {
      IntentRecord created = inFlight("k");
      b.create(created);
      IntentRecord next = created.successor().state(IntentState.COMPLETED).build();
      try (Connection c = db.pool.getConnection()) {
        c.setAutoCommit(false);
        assertThat(store.compareAndSetInTransaction(c, created, next))
            .as("same revision, but b holds a live lease").isFalse();
        c.commit();
        b.release(created.id());
        assertThat(store.compareAndSetInTransaction(c, created, next))
            .as("the lease is free").isTrue();
        c.commit();
        c.setAutoCommit(true);
      }
      assertThat(b.get(created.id())).contains(next);
    }
  }

  @Test
  void a_held_replacement_gives_this_instance_the_lease_once_committed() throws Exception {
    IntentRecord created = IntentStoreContract.newRecord("s", "op", "k").toBuilder()
        .state(IntentState.PENDING).reason("waiting").build();
    store.create(created);
    IntentRecord claimed = created.successor().state(IntentState.IN_FLIGHT).reason(null).build();
    try (PostgresIntentStore b = PostgresIntentStore.builder(db.pool).owner("b")
        .lease(Duration.ofMinutes(5)).build()) {
      try (Connection c = db.pool.getConnection()) {
        c.setAutoCommit(false);
        assertThat(store.compareAndSetInTransaction(c, created, claimed)).isTrue();
        c.commit();
        c.setAutoCommit(true);
      }
      IntentRecord bNext = claimed.successor().state(IntentState.COMPLETED).build();
      assertThat(b.compareAndSet(claimed, bNext)).as("a holds the lease now").isFalse();
      assertThat(store.compareAndSet(claimed, bNext)).isTrue();
    }
  }

  @Test
  void the_replacement_must_carry_the_next_revision() throws Exception {
    IntentRecord created = inFlight("k");
    store.create(created);
    IntentRecord skipping = created.toBuilder().revision(2).state(IntentState.COMPLETED).build();
    try (Connection c = db.pool.getConnection()) {
      assertThatThrownBy(() -> store.compareAndSetInTransaction(c, created, skipping))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.compareAndSetInTransaction(null, created, skipping))
          .isInstanceOf(NullPointerException.class);
    }
    assertThat(store.get(created.id())).contains(created);
  }
}
