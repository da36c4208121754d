package dev.oncely.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerDialect;
import dev.oncely.persistence.StoreEngine;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's 30-second quick start, kept compiling and working: the same code against the
 * reference server (Stripe dialect) and a store in a temp directory instead of the README's URL
 * and path.
 */
class ReadmeQuickStartTest {
  @TempDir Path dir;

  private final List<StoredResponse> shipped = new ArrayList<>();
  private final List<Object> other = new ArrayList<>();

  @Test
  void quick_start_charges_once_and_a_second_run_sends_nothing() throws Exception {
    try (ReferenceServer server =
        ReferenceServer.builder().dialect(ServerDialect.STRIPE).build().start()) {
      String payments = server.baseUrl() + "payments";
      quickStart(payments);
      quickStart(payments);

      assertThat(shipped).hasSize(2);
      assertThat(shipped.get(1).body()).isEqualTo(shipped.get(0).body());
      assertThat(other).isEmpty();
      assertThat(server.stats().effects()).isEqualTo(1);
      assertThat(server.stats().requests()).isEqualTo(1);
    }
  }

  private void quickStart(String paymentsUrl) {
    try (IntentStore store = StoreEngine.defaultEngine().open(dir.resolve("oncely.db"));
         IdempotentClient client = IdempotentClient.builder()
             .store(store)
             .dialect(Dialects.stripe())
             .headerProvider((id, url) -> Map.of("Authorization", "Bearer " + token()))
             .build()) {

      client.resumePending();

      IntentSpec charge = IntentSpec.builder()
          .operation("create-payment").scope("tenant-42")
          .post(paymentsUrl)
          .jsonBody("{\"amount\":1000,\"currency\":\"JPY\",\"order\":\"o-7\"}")
          .businessId("o-7")
          .build();

      IntentOutcome outcome = client.execute(charge);
      if (outcome instanceof IntentOutcome.Completed done) {
        ship(done.response());
      } else if (outcome instanceof IntentOutcome.Pending unknown) {
        checkAgainAt(unknown.checkAgainAt());
      } else {
        handle(outcome);
      }
    }
  }

  private static String token() {
    return "t0ken";
  }

  private void ship(StoredResponse response) {
    shipped.add(response);
  }

  private void checkAgainAt(Instant when) {
    other.add(when);
  }

  private void handle(IntentOutcome outcome) {
    other.add(outcome);
  }
}
