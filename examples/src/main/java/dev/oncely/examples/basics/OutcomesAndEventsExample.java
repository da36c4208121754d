package dev.oncely.examples.basics;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.event.EventCounter;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import java.time.Duration;

/**
 * Reading outcomes and events: a listener sees each attempt, retry and {@code 202}; every outcome
 * is one of five kinds, and only {@code Completed}, {@code Rejected} and {@code KeyConflict} are
 * final.
 */
public final class OutcomesAndEventsExample {
  private OutcomesAndEventsExample() {}

  /** Runs a slow payment, a refused payment and a flaky one, printing events and outcomes. */
  public static void main(String[] args) {
    EventCounter counter = new EventCounter();
    IntentListener printer = event -> {
      if (event instanceof IntentEvent.AttemptEnded e) {
        System.out.println("  attempt " + e.attempt() + " -> "
            + (e.failure() != null ? e.failure() : Integer.toString(e.status())));
      } else if (event instanceof IntentEvent.RetryScheduled r) {
        System.out.println("  retry in " + r.delay().toMillis() + " ms: " + r.cause());
      } else if (event instanceof IntentEvent.Accepted) {
        System.out.println("  202 accepted: polling the status URL");
      }
    };
    try (ReferenceServer server = ReferenceServer.builder()
            .faults(FaultPlan.parse("drop=0.3,seed=5"))
            .slowShare(0.5)
            .slowFor(Duration.ofMillis(200))
            .retryAfterSeconds(1)
            .build()
            .start();
        IdempotentClient client = IdempotentClient.builder()
            .listener(IntentListener.all(counter, printer))
            .build()) {
      String[] bodies = {
          "{\"amount\":1000,\"order\":\"o-1\"}",
          "{\"amount\":-5,\"order\":\"o-2\"}",
          "{\"amount\":3000,\"order\":\"o-3\"}"};
      for (String body : bodies) {
        System.out.println(body);
        IntentOutcome outcome = client.execute(IntentSpec.builder()
            .operation("create-payment")
            .scope("tenant-1")
            .post(server.baseUrl() + "payments")
            .jsonBody(body)
            .build());
        System.out.println("  => " + describe(outcome));
      }
      System.out.println("events: " + counter);
    }
  }

  private static String describe(IntentOutcome outcome) {
    if (outcome instanceof IntentOutcome.Completed c) {
      return "completed with " + c.response().status() + (c.replayed() ? " (replayed)" : "");
    } else if (outcome instanceof IntentOutcome.Rejected r) {
      return "rejected by the server with " + r.response().status();
    } else if (outcome instanceof IntentOutcome.KeyConflict k) {
      return "key conflict: the key was used with another payload";
    } else if (outcome instanceof IntentOutcome.Pending p) {
      return "pending (" + p.reason() + "): not known yet, check again at " + p.checkAgainAt();
    } else {
      return "needs reconciliation: " + ((IntentOutcome.NeedsReconciliation) outcome).reason();
    }
  }
}
