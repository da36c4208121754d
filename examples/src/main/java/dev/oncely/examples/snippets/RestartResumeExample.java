package dev.oncely.examples.snippets;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentStore;
import dev.oncely.client.RetryPolicy;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.persistence.SqliteIntentStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Restart and resume: the first "process" charges the customer but never hears back (every answer
 * is lost), so it gives up with the outcome honestly <em>unknown</em> ({@link
 * IntentOutcome.Pending}), not failed. The second "process" opens the same store and calls {@link
 * IdempotentClient#resumePending()}: the stored key and body are sent again, the server replays the
 * payment it already made, and there is still exactly one payment.
 *
 * <p>Teaches: a timeout is not a failure; restart survival needs a durable store and one call.
 * The demo ({@code java -jar oncely-examples.jar}) does the same with a real SIGKILL.
 */
public final class RestartResumeExample {
  private RestartResumeExample() {}

  /** Runs both "processes" one after the other against one server. */
  public static void main(String[] args) throws IOException {
    Path storeFile = Files.createTempDirectory("oncely-resume-").resolve("intents.db");
    try (ReferenceServer server = ReferenceServer.builder()
        .faults(FaultPlan.parse("drop=1"))
        .build()
        .start()) {
      try (IntentStore store = SqliteIntentStore.open(storeFile);
          IdempotentClient client = client(store)) {
        IntentOutcome outcome = client.execute(IntentSpec.builder()
            .scope("shop-17")
            .operation("create-payment")
            .post(server.baseUrl() + "payments")
            .jsonBody("{\"amount\":990,\"currency\":\"JPY\",\"customer\":\"c-4\","
                + "\"order\":\"order-77\"}")
            .businessId("order-77")
            .build());
        if (outcome instanceof IntentOutcome.Pending p) {
          System.out.println("process 1: outcome unknown (" + p.reason() + "), kept in the store");
        }
      }

      server.changeFaults(FaultPlan.none());

      try (IntentStore store = SqliteIntentStore.open(storeFile);
          IdempotentClient client = client(store)) {
        for (CompletableFuture<IntentOutcome> resumed : client.resumePending()) {
          System.out.println("process 2: " + DurableIntentExample.describe(resumed.join()));
        }
      }
      System.out.println("payments created: " + server.stats().effects());
    }
  }

  private static IdempotentClient client(IntentStore store) {
    return IdempotentClient.builder()
        .store(store)
        .retryPolicy(RetryPolicy.builder()
            .maxAttempts(3)
            .baseDelay(Duration.ofMillis(50))
            .build())
        .build();
  }
}
