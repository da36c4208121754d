package dev.oncely.consumer;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.StoreEngine;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import mockwebserver3.MockWebServer;

/**
 * The README's quick start against a server that charges and then drops its answer: the intent is
 * durable in a MapDB file before the first byte, the resend carries the same key, and a second
 * submit of the same business id after a restart is answered from the store. The server must count
 * exactly one charge.
 */
public final class DurablePayment {
  private DurablePayment() {}

  /** Pays order o-7 once; a non-zero exit (an exception) fails the consumer build. */
  public static void main(String[] args) throws Exception {
    IdempotentServer payments = IdempotentServer.builder()
        .intentOf(IdempotentServer.jsonField("order"))
        .faults(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build())
        .build();
    Path file = Files.createTempDirectory("oncely-java-consumer").resolve("oncely.db");
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(payments);
      server.start();
      String url = server.url("/payments").toString();

      for (String run : List.of("first run", "after a restart")) {
        try (IntentStore store = StoreEngine.defaultEngine().open(file);
             IdempotentClient client = IdempotentClient.builder()
                 .store(store)                                   // durable: survives restarts
                 .build()) {

          client.resumePending();                                // finish what a crash left

          IntentSpec charge = IntentSpec.builder()
              .operation("create-payment").scope("tenant-42")
              .post(url)
              .jsonBody("{\"amount\":1000,\"currency\":\"JPY\",\"order\":\"o-7\"}")
              .businessId("o-7")                                 // the same intent when resent
              .build();

          IntentOutcome outcome = client.execute(charge);
          if (!(outcome instanceof IntentOutcome.Completed done)) {
            throw new IllegalStateException(run + ": expected Completed, got " + outcome);
          }
          System.out.println(run + ": " + done.response().status());
        }
      }
    }
    payments.ledger().assertExactlyOneEffectEach(List.of("o-7"));
    if (payments.ledger().size() != 1) {
      throw new IllegalStateException("expected one effect, got " + payments.ledger().all());
    }
    System.out.println(StoreEngine.defaultEngine() + ": one intent, " + payments.requestCount()
        + " requests, " + payments.ledger().size() + " effect");
  }
}
