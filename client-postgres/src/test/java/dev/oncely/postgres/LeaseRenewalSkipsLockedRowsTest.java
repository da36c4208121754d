package dev.oncely.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.spi.IntentStoreContract;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.postgres.internal.LeaseKeeper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A row an app's open transaction holds does not stall the renewal of the owner's other leases. */
class LeaseRenewalSkipsLockedRowsTest {
  static PgTestDatabase db;

  @BeforeAll
  static void database() throws Exception {
    db = PgTestDatabase.create();
  }

  @AfterAll
  static void closeDatabase() {
    db.close();
  }

  private static IntentRecord inFlight(String key) {
    return IntentStoreContract.newRecord("s", "op", key).toBuilder()
        .state(IntentState.IN_FLIGHT).build();
  }

  @Test
  void renewal_skips_a_row_held_by_an_open_transaction_and_renews_the_others() throws Exception {
    try (PostgresIntentStore store = PostgresIntentStore.builder(db.pool).owner("a")
            .lease(Duration.ofMinutes(5)).build();
        LeaseKeeper keeper = new LeaseKeeper(db.pool, "a", Duration.ofMinutes(5),
            "oncely_intent")) {
      IntentRecord held = inFlight("held-by-a-transaction");
      IntentRecord free = inFlight("free");
      store.create(held);
      store.create(free);
      keeper.hold(held.id());
      keeper.hold(free.id());
      try (Connection tx = db.pool.getConnection()) {
        tx.setAutoCommit(false);
        try (PreparedStatement lock = tx.prepareStatement("SELECT 1 FROM oncely_intent"
            + " WHERE lookup = ? FOR UPDATE")) {
          lock.setBytes(1, RecordCodec.lookupKey(held.id()));
          lock.executeQuery().close();
        }

        int renewed = CompletableFuture.supplyAsync(() -> {
          try {
            return keeper.renew();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }).get(10, TimeUnit.SECONDS);

        assertThat(renewed).isEqualTo(1);
        tx.rollback();
      }
      assertThat(keeper.renew()).isEqualTo(2);
    }
  }
}
