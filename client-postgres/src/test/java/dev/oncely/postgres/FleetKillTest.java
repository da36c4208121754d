package dev.oncely.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three instance JVMs share one database and drive a few hundred intents against a server with
 * faults (503 before the effect, answers dropped after it); instances are SIGKILLed at random and
 * restarted. Afterwards every intent is completed with exactly one business effect. The takeover
 * time (kill until every intent the dead instance held a lease on was taken by a live one or
 * finished) is measured and printed; it is bounded by the lease plus one scheduler tick, not
 * asserted (no timing assertions on a loaded CI box).
 * {@code -Doncely.fleet.orders=N} and {@code -Doncely.fleet.kills=K} make the run longer.
 */
class FleetKillTest {
  private static final int INSTANCES = 3;
  private static final long LEASE_MILLIS = 1_500;

  @TempDir Path dir;

  @Test
  void every_intent_completes_with_exactly_one_effect_while_instances_are_killed_and_restarted()
      throws Exception {
    int orders = Integer.getInteger("oncely.fleet.orders", 300);
    int kills = Integer.getInteger("oncely.fleet.kills", 4);
    Random random = new Random(42);
    EffectServer effects = new EffectServer(42, 10, 10, Duration.ofMillis(400));
    try (PgTestDatabase db = PgTestDatabase.create(); MockWebServer server = new MockWebServer()) {
      server.setDispatcher(effects);
      server.start();
      String base = server.url("/").toString().replaceAll("/$", "");
      ChildJvm[] children = new ChildJvm[INSTANCES];
      String[] owners = new String[INSTANCES];
      int incarnation = 0;
      List<Long> takeoverMillis = new ArrayList<>();
      try {
        for (int i = 0; i < INSTANCES; i++) {
          owners[i] = "fleet-" + i + "-" + incarnation++;
          children[i] = startChild(db, base, i, orders, owners[i]);
        }
        for (int k = 0; k < kills; k++) {
          TimeUnit.MILLISECONDS.sleep(300 + random.nextInt(1200));
          int victim = random.nextInt(INSTANCES);
          String dead = owners[victim];
          children[victim].kill();
          long killedAt = System.nanoTime();
          boolean heldSome = heldBy(db, dead) > 0;
          owners[victim] = "fleet-" + victim + "-" + incarnation++;
          children[victim] = startChild(db, base, victim, orders, owners[victim]);
          if (heldSome) {
            awaitTakenOver(db, dead, killedAt, takeoverMillis);
          }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (completed(db) < orders) {
          assertThat(System.nanoTime()).as("only %s of %s intents completed; %s",
              completed(db), orders, effects).isLessThan(deadline);
          TimeUnit.MILLISECONDS.sleep(100);
        }
      } finally {
        for (ChildJvm child : children) {
          if (child != null) {
            child.close();
          }
        }
      }
      System.out.println("fleet: " + orders + " intents, " + kills + " kills, takeover ms "
          + takeoverMillis + " (lease " + LEASE_MILLIS + " ms); " + effects);
      assertThat(completed(db)).isEqualTo(orders);
      for (int n = 0; n < orders; n++) {
        assertThat(effects.effectsOf(Workload.order(n))).as("effects of order %s", n).isEqualTo(1);
      }
      assertThat(effects.effects()).isEqualTo(orders);
    }
  }

  private ChildJvm startChild(PgTestDatabase db, String base, int index, int orders, String owner)
      throws Exception {
    ChildJvm child = ChildJvm.start(FleetChild.class, List.of(db.url, base,
        Integer.toString(index), Integer.toString(INSTANCES), Integer.toString(orders), owner,
        Long.toString(LEASE_MILLIS)), dir, owner);
    child.awaitLine("READY", 120);
    return child;
  }

  private static int completed(PgTestDatabase db) throws SQLException {
    try (Connection c = db.pool.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(
            "SELECT count(*) FROM oncely_intent WHERE state = 'COMPLETED'")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static int heldBy(PgTestDatabase db, String owner) throws SQLException {
    try (Connection c = db.pool.getConnection(); PreparedStatement st = c.prepareStatement(
        "SELECT count(*) FROM oncely_intent WHERE lease_owner = ?")) {
      st.setString(1, owner);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /**
   * Waits until no row is leased by the dead {@code owner} any more (each was claimed by a live
   * instance, which overwrites the lease owner); records how long that took after the kill.
   */
  private static void awaitTakenOver(PgTestDatabase db, String owner, long killedAt,
      List<Long> takeoverMillis) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (heldBy(db, owner) > 0) {
      assertThat(System.nanoTime()).as("the intents of dead %s were never taken over", owner)
          .isLessThan(deadline);
      TimeUnit.MILLISECONDS.sleep(20);
    }
    takeoverMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt));
  }
}
