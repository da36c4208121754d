package dev.oncely.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.DueWorkScheduler;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.Sleeper;
import dev.oncely.client.spi.IntentStoreContract;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Leases and fencing between two store instances (two fleet members) on one real database. */
class LeaseFencingTest {
  static PgTestDatabase db;

  @BeforeAll
  static void database() {
    db = PgTestDatabase.create();
  }

  @AfterAll
  static void closeDatabase() {
    db.close();
  }

  @BeforeEach
  void empty() {
    db.truncate();
  }

  private static PostgresIntentStore store(javax.sql.DataSource ds, String owner, Duration lease) {
    return PostgresIntentStore.builder(ds).owner(owner).lease(lease).build();
  }

  private static IntentRecord inFlight(String key) {
    return IntentStoreContract.newRecord("s", "op", key).toBuilder()
        .state(IntentState.IN_FLIGHT).build();
  }

  private static List<IntentRecord> claimUntilSome(PostgresIntentStore store)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      List<IntentRecord> claimed = store.claimDue(Instant.now(), 10);
      if (!claimed.isEmpty()) {
        return claimed;
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    throw new AssertionError("nothing became claimable within 60 s");
  }

  @Test
  void a_live_lease_is_not_claimed_by_another_instance_until_released() {
    try (PostgresIntentStore a = store(db.pool, "a", Duration.ofMinutes(5));
        PostgresIntentStore b = store(db.pool, "b", Duration.ofMinutes(5))) {
      IntentRecord r = inFlight("k");
      a.create(r);
      assertThat(b.claimDue(Instant.now(), 10)).isEmpty();
      assertThat(a.claimDue(Instant.now(), 10)).isEmpty();
      a.release(r.id());
      assertThat(b.claimDue(Instant.now(), 10)).containsExactly(r);
      assertThat(a.claimDue(Instant.now(), 10)).isEmpty();
    }
  }

  private static java.sql.Timestamp leaseUntil(IntentRecord r) throws java.sql.SQLException {
    try (java.sql.Connection c = db.pool.getConnection();
        java.sql.PreparedStatement st = c.prepareStatement(
            "SELECT lease_until FROM oncely_intent WHERE lookup = ?")) {
      st.setBytes(1, dev.oncely.client.spi.RecordCodec.lookupKey(r.id()));
      try (java.sql.ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getTimestamp(1);
      }
    }
  }

  @Test
  void the_owner_renews_its_lease_so_it_outlives_its_length() throws Exception {
    try (PostgresIntentStore a = store(db.pool, "a", Duration.ofSeconds(2));
        PostgresIntentStore b = store(db.pool, "b", Duration.ofMinutes(5))) {
      IntentRecord r = inFlight("k");
      a.create(r);
      java.sql.Timestamp first = leaseUntil(r);
      // Wait past the first lease's end; renewal runs every third of the lease.
      TimeUnit.MILLISECONDS.sleep(Math.max(0, first.getTime() - System.currentTimeMillis()) + 500);
      assertThat(leaseUntil(r)).isAfter(first);
      assertThat(b.claimDue(Instant.now(), 10)).isEmpty();
    }
  }

  @Test
  void closing_a_store_hands_its_leases_to_the_fleet_at_once() {
    try (PostgresIntentStore b = store(db.pool, "b", Duration.ofMinutes(5))) {
      IntentRecord r = inFlight("k");
      PostgresIntentStore a = store(db.pool, "a", Duration.ofMinutes(5));
      a.create(r);
      assertThat(b.claimDue(Instant.now(), 10)).isEmpty();
      a.close();
      assertThat(b.claimDue(Instant.now(), 10)).containsExactly(r);
    }
  }

  @Test
  void records_not_yet_due_or_finished_are_never_claimed() {
    try (PostgresIntentStore a = store(db.pool, "a", Duration.ofMinutes(5))) {
      Instant now = Instant.now();
      IntentRecord later = IntentStoreContract.newRecord("s", "op", "later").toBuilder()
          .state(IntentState.PENDING).nextAttemptAt(now.plusSeconds(3600)).build();
      IntentRecord done = IntentStoreContract.newRecord("s", "op", "done").toBuilder()
          .state(IntentState.COMPLETED).build();
      IntentRecord due = IntentStoreContract.newRecord("s", "op", "due").toBuilder()
          .state(IntentState.PENDING).nextAttemptAt(now.minusSeconds(1)).build();
      a.create(later);
      a.create(done);
      a.create(due);
      assertThat(a.claimDue(now, 10)).containsExactly(due);
    }
  }

  @Test
  void a_damaged_row_gives_a_typed_error_on_read_and_does_not_hold_back_the_claim()
      throws Exception {
    try (PostgresIntentStore a = store(db.pool, "a", Duration.ofMinutes(5))) {
      IntentRecord good = IntentStoreContract.newRecord("s", "op", "good").toBuilder()
          .state(IntentState.PENDING).nextAttemptAt(Instant.now().minusSeconds(5)).build();
      IntentRecord bad = IntentStoreContract.newRecord("s", "op", "bad").toBuilder()
          .state(IntentState.PENDING).nextAttemptAt(Instant.now().minusSeconds(10)).build();
      a.create(good);
      a.create(bad);
      try (java.sql.Connection c = db.pool.getConnection();
          java.sql.PreparedStatement st = c.prepareStatement("UPDATE oncely_intent"
              + " SET record = overlay(record placing '\\xff'::bytea from 30 for 1)"
              + " WHERE lookup = ?")) {
        st.setBytes(1, dev.oncely.client.spi.RecordCodec.lookupKey(bad.id()));
        assertThat(st.executeUpdate()).isEqualTo(1);
      }
      assertThatThrownBy(() -> a.get(bad.id()))
          .isInstanceOf(dev.oncely.client.StoreCorruptedException.class);
      assertThat(a.claimDue(Instant.now(), 10)).containsExactly(good);
    }
  }

  @Test
  void an_instance_whose_lease_expired_cannot_overwrite_the_instance_that_took_over()
      throws Exception {
    CutDataSource aDb = new CutDataSource(db.pool);
    try (PostgresIntentStore a = store(aDb, "a", Duration.ofSeconds(1));
        PostgresIntentStore b = store(db.pool, "b", Duration.ofMinutes(5))) {
      IntentRecord created = inFlight("k");
      a.create(created);
      aDb.cut();
      assertThat(claimUntilSome(b)).containsExactly(created);
      aDb.heal();
      IntentRecord aNext = created.successor().state(IntentState.COMPLETED).reason("a").build();
      assertThat(a.compareAndSet(created, aNext))
          .as("same revision, but b holds a live lease").isFalse();
      IntentRecord bNext = created.successor().state(IntentState.PENDING).reason("b").build();
      assertThat(b.compareAndSet(created, bNext)).isTrue();
      assertThat(a.compareAndSet(created, aNext)).as("stale revision").isFalse();
      assertThat(a.get(created.id())).contains(bNext);
    }
  }

  /** Blocks the driver's retry wait until released: the owner frozen in the middle of a drive. */
  static final class FreezingSleeper implements Sleeper {
    final CountDownLatch frozen = new CountDownLatch(1);
    final CountDownLatch thaw = new CountDownLatch(1);

    @Override
    public void sleep(Duration duration) throws InterruptedException {
      frozen.countDown();
      if (!thaw.await(120, TimeUnit.SECONDS)) {
        throw new AssertionError("never thawed");
      }
    }
  }

  @Test
  void two_instances_never_drive_one_intent_at_once_when_the_owner_pauses_past_its_lease()
      throws Exception {
    EffectServer effects = new EffectServer(1, 0, 0);
    effects.failFirstRequestOf(Workload.order(1));
    CutDataSource aDb = new CutDataSource(db.pool);
    FreezingSleeper freeze = new FreezingSleeper();
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(effects);
      server.start();
      String base = server.url("/").toString().replaceAll("/$", "");
      try (PostgresIntentStore aStore = store(aDb, "a", Duration.ofSeconds(1));
          PostgresIntentStore bStore = store(db.pool, "b", Duration.ofMinutes(5));
          IdempotentClient a = IdempotentClient.builder().store(aStore).sleeper(freeze).build();
          IdempotentClient b = IdempotentClient.builder().store(bStore)
              .retryPolicy(RetryPolicy.builder().baseDelay(Duration.ofMillis(10)).build()).build();
          DueWorkScheduler bScheduler = DueWorkScheduler.builder(b).build()) {
        dev.oncely.client.IntentSpec spec = Workload.spec(base, 1);
        IntentId id = spec.id();
        CompletableFuture<IntentOutcome> aDrive = a.submit(spec);
        assertThat(freeze.frozen.await(60, TimeUnit.SECONDS)).isTrue();
        aDb.cut();

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (bScheduler.pollOnce() == 0) {
          assertThat(System.nanoTime()).as("b never took the intent over").isLessThan(deadline);
          TimeUnit.MILLISECONDS.sleep(50);
        }
        effects.await(() -> bScheduler.driving() == 0, Duration.ofSeconds(60), "b's drive ends");
        IntentRecord afterB = bStore.get(id).orElseThrow();
        assertThat(afterB.state()).isEqualTo(IntentState.COMPLETED);
        assertThat(effects.effectsOf(Workload.order(1))).isEqualTo(1);

        aDb.heal();
        freeze.thaw.countDown();
        IntentOutcome aOutcome = aDrive.get(60, TimeUnit.SECONDS);
        assertThat(aOutcome).isInstanceOf(IntentOutcome.Completed.class);
        assertThat(bStore.get(id)).as("a's late write was refused").contains(afterB);
        assertThat(effects.effectsOf(Workload.order(1))).isEqualTo(1);
        assertThat(effects.maxActivePerKey()).isEqualTo(1);
      }
    }
  }
}
