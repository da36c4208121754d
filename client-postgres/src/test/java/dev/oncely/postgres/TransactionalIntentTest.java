package dev.oncely.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.DueWorkScheduler;
import dev.oncely.client.DuplicateIntentException;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Intents written in the app's own transaction, beside its business row. */
class TransactionalIntentTest {
  static PgTestDatabase db;

  @TempDir Path dir;
  final EffectServer effects = new EffectServer(7, 0, 0);
  final MockWebServer server = new MockWebServer();
  String base;
  PostgresIntentStore store;
  IdempotentClient client;

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
  void start() throws Exception {
    db.truncate();
    try (Connection c = db.pool.getConnection(); Statement st = c.createStatement()) {
      st.execute("TRUNCATE orders");
    }
    server.setDispatcher(effects);
    server.start();
    base = server.url("/").toString().replaceAll("/$", "");
    store = PostgresIntentStore.builder(db.pool).lease(Duration.ofSeconds(1)).build();
    client = IdempotentClient.builder().store(store).build();
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    store.close();
    server.close();
  }

  private IntentRecord writeOrderAndIntent(Connection c, int n) throws SQLException {
    c.setAutoCommit(false);
    try (PreparedStatement st = c.prepareStatement("INSERT INTO orders (id) VALUES (?)")) {
      st.setString(1, Workload.order(n));
      st.executeUpdate();
    }
    IntentRecord record = client.newRecord(Workload.spec(base, n));
    store.createInTransaction(c, record);
    return record;
  }

  private static boolean orderExists(Connection c, int n) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT 1 FROM orders WHERE id = ?")) {
      st.setString(1, Workload.order(n));
      try (ResultSet rs = st.executeQuery()) {
        return rs.next();
      }
    }
  }

  @Test
  void a_committed_intent_is_sent_exactly_once_after_the_commit() throws Exception {
    IntentRecord record;
    try (Connection c = db.pool.getConnection()) {
      record = writeOrderAndIntent(c, 1);
      assertThat(effects.requests()).as("nothing is sent before the commit").isZero();
      c.commit();
      c.setAutoCommit(true);
    }
    IntentOutcome outcome = client.resume(record.id()).get(60, TimeUnit.SECONDS);
    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(client.resume(record.id()).get(60, TimeUnit.SECONDS))
        .isInstanceOf(IntentOutcome.Completed.class);
    assertThat(effects.effectsOf(Workload.order(1))).isEqualTo(1);
    assertThat(effects.requests()).isEqualTo(1);
  }

  @Test
  void a_rolled_back_intent_never_exists_and_is_never_sent() throws Exception {
    IntentRecord record;
    try (Connection c = db.pool.getConnection()) {
      record = writeOrderAndIntent(c, 2);
      c.rollback();
      c.setAutoCommit(true);
      assertThat(orderExists(c, 2)).isFalse();
    }
    assertThat(store.get(record.id())).isEmpty();
    assertThat(store.listUnfinished()).isEmpty();
    try (DueWorkScheduler scheduler = DueWorkScheduler.builder(client).build()) {
      assertThat(scheduler.pollOnce()).isZero();
    }
    assertThatThrownBy(() -> client.resume(record.id()).get(60, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(StoreException.class);
    assertThat(effects.requests()).isZero();
  }

  @Test
  void a_duplicate_business_id_is_refused_and_the_callers_transaction_stays_usable()
      throws Exception {
    try (Connection c = db.pool.getConnection()) {
      writeOrderAndIntent(c, 3);
      c.commit();
      try (PreparedStatement st = c.prepareStatement("INSERT INTO orders (id) VALUES ('other')")) {
        st.executeUpdate();
      }
      IntentRecord again = client.newRecord(Workload.spec(base, 3));
      assertThatThrownBy(() -> store.createInTransaction(c, again))
          .isInstanceOf(DuplicateIntentException.class);
      c.commit();
      c.setAutoCommit(true);
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT count(*) FROM orders")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(2);
      }
    }
  }

  @Test
  void an_intent_committed_just_before_the_jvm_died_is_sent_once_by_the_scheduler()
      throws Exception {
    try (ChildJvm child = ChildJvm.start(TxChild.class, List.of(db.url, base, "4"), dir, "tx")) {
      child.awaitLine("COMMITTED", 120);
      child.kill();
    }
    assertThat(effects.requests()).as("the child died before any send").isZero();
    IntentRecord stored = store.findByBusinessId(Workload.SCOPE, Workload.OPERATION,
        Workload.order(4)).orElseThrow();
    assertThat(stored.state()).isEqualTo(IntentState.NEW);
    try (DueWorkScheduler scheduler = DueWorkScheduler.builder(client)
        .interval(Duration.ofMillis(100)).build()) {
      scheduler.start();
      effects.await(() -> store.get(stored.id()).orElseThrow().state() == IntentState.COMPLETED,
          Duration.ofSeconds(60), "the orphaned intent is completed");
    }
    assertThat(effects.effectsOf(Workload.order(4))).isEqualTo(1);
    assertThat(effects.requests()).isEqualTo(1);
  }
}
