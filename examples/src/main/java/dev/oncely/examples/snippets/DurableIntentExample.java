package dev.oncely.examples.snippets;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentStore;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.persistence.SqliteIntentStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The intent API with a durable store: describe the payment as an {@link IntentSpec}, let {@link
 * IdempotentClient} store key and body in SQLite <em>before</em> the first byte is sent, and read
 * the {@link IntentOutcome}. Asking again for the same business id (a double click, a redelivered
 * message) answers from the store without sending anything.
 *
 * <p>Teaches: scope, operation and business id; persist-before-send; repeats cost no I/O.
 */
public final class DurableIntentExample {
  private DurableIntentExample() {}

  /** Pays order {@code order-1001} and asks for it a second time. */
  public static void main(String[] args) throws IOException {
    Path dir = Files.createTempDirectory("oncely-durable-");
    try (ReferenceServer server = ReferenceServer.builder()
            .faults(FaultPlan.parse("drop=0.3,refuse=0.2,seed=5"))
            .build()
            .start();
        IntentStore store = SqliteIntentStore.open(dir.resolve("intents.db"));
        IdempotentClient client = IdempotentClient.builder().store(store).build()) {
      IntentOutcome first = client.execute(payment(server));
      System.out.println("first ask:  " + describe(first));

      long requestsBefore = server.stats().requests();
      IntentOutcome again = client.execute(payment(server));
      System.out.println("second ask: " + describe(again) + ", requests sent: "
          + (server.stats().requests() - requestsBefore));
      System.out.println("payments created: " + server.stats().effects());
    }
  }

  /** The intent; built twice, it is still one intent because the business id is the same. */
  static IntentSpec payment(ReferenceServer server) {
    return IntentSpec.builder()
        .scope("shop-17")
        .operation("create-payment")
        .post(server.baseUrl() + "payments")
        .jsonBody("{\"amount\":4200,\"currency\":\"JPY\",\"customer\":\"c-9\","
            + "\"order\":\"order-1001\"}")
        .businessId("order-1001")
        .build();
  }

  static String describe(IntentOutcome outcome) {
    if (outcome instanceof IntentOutcome.Completed c) {
      return "completed with " + c.response().status() + (c.replayed() ? " (replayed)" : "");
    }
    return outcome.state().toString();
  }
}
