package dev.oncely.examples.basics;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.persistence.SqliteIntentStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The intent API with a durable store: the key and the exact body are stored before the first
 * byte is sent, so the intent can be finished after a crash; the outcome is stored before
 * {@code execute} returns.
 */
public final class DurableIntentExample {
  private DurableIntentExample() {}

  /** Executes one payment intent through a flaky server with a SQLite store in a temp dir. */
  public static void main(String[] args) throws IOException {
    Path dir = Files.createTempDirectory("oncely-durable-");
    try (ReferenceServer server = ReferenceServer.builder()
            .faults(FaultPlan.parse("drop=0.5,refuse=0.2,seed=3"))
            .build()
            .start();
        SqliteIntentStore store = SqliteIntentStore.open(dir.resolve("intents.sqlite"));
        IdempotentClient client = IdempotentClient.builder().store(store).build()) {
      IntentOutcome outcome = client.execute(payment(server));
      if (outcome instanceof IntentOutcome.Completed done) {
        System.out.println("completed" + (done.replayed() ? " (the server replayed it)" : "")
            + ": " + new String(done.response().body(), StandardCharsets.UTF_8));
      } else {
        System.out.println("not completed yet: " + outcome);
      }
      // The same business intent again (a new spec, so a new key, but the same business id) is
      // recognised by its business id and answered from the store, without I/O.
      IntentOutcome again = client.execute(payment(server));
      System.out.println("again: " + again.state() + "; payments on the server: "
          + server.stats().effects());
    }
  }

  private static IntentSpec payment(ReferenceServer server) {
    return IntentSpec.builder()
        .operation("create-payment")
        .scope("tenant-1")
        .post(server.baseUrl() + "payments")
        .jsonBody("{\"amount\":1000,\"currency\":\"JPY\",\"order\":\"o-1\"}")
        .businessId("o-1")
        .build();
  }
}
