package dev.oncely.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.DueWorkScheduler;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.PendingReason;
import dev.oncely.client.RetryPolicy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;

/**
 * The database is stopped in the middle of a run and started again: while it is down the store
 * throws {@link DatabaseUnavailableException} (a new intent is answered {@code Pending} with
 * {@code STORE_FAILED} and that cause, nothing sent); nothing accepted is lost, and drives continue (by
 * the due-work scheduler) once it is back, each intent with exactly one effect.
 */
class DatabaseRestartTest {
  private static final int BEFORE = 40;
  private static final int AFTER = 20;

  @Test
  void a_database_restart_mid_run_gives_typed_errors_loses_nothing_and_drives_continue()
      throws Exception {
    EffectServer effects = new EffectServer(3, 0, 0, Duration.ofMillis(300));
    try (PostgresServer pg = PostgresServer.start();
        PgTestDatabase db = PgTestDatabase.create(pg);
        MockWebServer server = new MockWebServer()) {
      server.setDispatcher(effects);
      server.start();
      String base = server.url("/").toString().replaceAll("/$", "");
      try (PostgresIntentStore store = PostgresIntentStore.builder(db.pool)
              .lease(Duration.ofSeconds(1)).build();
          IdempotentClient client = IdempotentClient.builder().store(store)
              .retryPolicy(RetryPolicy.builder().baseDelay(Duration.ofMillis(20))
                  .maxDelay(Duration.ofMillis(200)).deadline(Duration.ofSeconds(3)).build())
              .build();
          DueWorkScheduler scheduler = DueWorkScheduler.builder(client)
              .interval(Duration.ofMillis(100)).build()) {
        scheduler.start();
        List<IntentSpec> specs = new ArrayList<>();
        for (int n = 0; n < BEFORE + AFTER; n++) {
          specs.add(Workload.spec(base, n));
        }
        List<CompletableFuture<IntentOutcome>> submitted = new ArrayList<>();
        for (int n = 0; n < BEFORE; n++) {
          submitted.add(client.submit(specs.get(n)));
        }
        effects.await(() -> effects.effects() >= BEFORE / 4, Duration.ofSeconds(60),
            "some effects before the restart");

        pg.stopServer();
        IntentOutcome refused = client.execute(specs.get(BEFORE));
        assertThat(refused).isInstanceOfSatisfying(IntentOutcome.Pending.class, p -> {
          assertThat(p.reason()).isEqualTo(PendingReason.STORE_FAILED);
          assertThat(p.cause()).isInstanceOf(DatabaseUnavailableException.class);
        });
        assertThatThrownBy(() -> store.claimDue(Instant.now(), 10))
            .isInstanceOf(DatabaseUnavailableException.class);
        assertThatThrownBy(() -> store.get(specs.get(0).id()))
            .isInstanceOf(DatabaseUnavailableException.class);
        int storeFailed = 0;
        for (int n = 0; n < BEFORE; n++) {
          IntentOutcome o = submitted.get(n).get(60, TimeUnit.SECONDS);
          if (o instanceof IntentOutcome.Pending p && p.reason() == PendingReason.STORE_FAILED) {
            storeFailed++;
          }
        }
        pg.startServer();
        awaitReachable(store, specs.get(0).id());

        // What the SDK asks of the app after STORE_FAILED: submit the same spec (same key) again.
        // Intents whose record did reach the database continue; the others are created now.
        for (int n = 0; n < BEFORE + AFTER; n++) {
          client.submit(specs.get(n));
        }
        effects.await(() -> completed(db) == BEFORE + AFTER, Duration.ofSeconds(90),
            "every intent completes after the restart");
        System.out.println("restart: " + storeFailed + " of " + BEFORE
            + " drives ended STORE_FAILED during the outage; " + effects);
      }
      for (int n = 0; n < BEFORE + AFTER; n++) {
        assertThat(effects.effectsOf(Workload.order(n))).as("effects of order %s", n).isEqualTo(1);
      }
      assertThat(effects.effects()).isEqualTo(BEFORE + AFTER);
    }
  }

  /** The pool reconnects on its own schedule; until then calls fail with the typed error. */
  private static void awaitReachable(PostgresIntentStore store, dev.oncely.client.IntentId id)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        store.get(id);
        return;
      } catch (DatabaseUnavailableException e) {
        assertThat(System.nanoTime()).as("the database never came back").isLessThan(deadline);
        TimeUnit.MILLISECONDS.sleep(50);
      }
    }
  }

  private static int completed(PgTestDatabase db) {
    try (Connection c = db.pool.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(
            "SELECT count(*) FROM oncely_intent WHERE state = 'COMPLETED'")) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      return -1;
    }
  }
}
