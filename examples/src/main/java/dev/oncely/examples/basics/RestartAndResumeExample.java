package dev.oncely.examples.basics;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
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
 * Restart and resume: an intent whose answers never arrive ends {@code PENDING} (never "failed":
 * the server may have charged); a new client on the same store file, as after a restart, finishes
 * it with the stored key and body, and the server counts one payment.
 */
public final class RestartAndResumeExample {
  private RestartAndResumeExample() {}

  /** Leaves one intent pending, "restarts", resumes it. */
  public static void main(String[] args) throws IOException {
    Path file = Files.createTempDirectory("oncely-resume-").resolve("intents.sqlite");
    RetryPolicy impatient = RetryPolicy.builder()
        .maxAttempts(2)
        .attemptTimeout(Duration.ofMillis(300))
        .deadline(Duration.ofSeconds(5))
        .build();
    try (ReferenceServer server = ReferenceServer.builder()
        .faults(FaultPlan.parse("stall=1,stallfor=600s"))
        .build()
        .start()) {
      try (SqliteIntentStore store = SqliteIntentStore.open(file);
          IdempotentClient client =
              IdempotentClient.builder().store(store).retryPolicy(impatient).build()) {
        IntentOutcome first = client.execute(IntentSpec.builder()
            .operation("create-payment")
            .scope("tenant-1")
            .post(server.baseUrl() + "payments")
            .jsonBody("{\"amount\":2500,\"currency\":\"JPY\",\"order\":\"o-7\"}")
            .businessId("o-7")
            .build());
        System.out.println("before the restart: " + first.state()
            + "; payments on the server: " + server.stats().effects());
      }

      server.changeFaults(FaultPlan.none());
      try (SqliteIntentStore store = SqliteIntentStore.open(file);
          IdempotentClient client = IdempotentClient.builder().store(store).build()) {
        for (CompletableFuture<IntentOutcome> resumed : client.resumePending()) {
          IntentOutcome outcome = resumed.join();
          System.out.println("after the restart: " + outcome.state()
              + (outcome instanceof IntentOutcome.Completed c && c.replayed()
                  ? " (the server replayed the payment it had made)" : ""));
        }
      }
      System.out.println("payments on the server: " + server.stats().effects()
          + ", duplicates: " + server.stats().duplicates());
    }
  }
}
