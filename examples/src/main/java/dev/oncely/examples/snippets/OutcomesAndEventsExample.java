package dev.oncely.examples.snippets;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.EventCounter;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reading outcomes and events: {@link IdempotentClient#submit} returns a future per intent; each
 * {@link IntentOutcome} is one of five kinds, handled here one by one. An {@link IntentListener}
 * sees every attempt, retry, {@code 202} and {@code 409} as it happens (never a key or a payload),
 * and {@link EventCounter} sums them up.
 *
 * <p>The client is told how this server marks a replayed answer ({@code Idempotent-Replayed:
 * true}; the IETF draft defines no marker). Without it, a refusal that follows a lost answer
 * cannot be told apart from a validation layer's refusal in front of a payment that did happen,
 * so the invalid payment would honestly stay {@code Pending(AMBIGUOUS_ANSWER)} whenever its first
 * attempt hit a fault.
 *
 * <p>Teaches: the outcome kinds and what to do with each; events for logs and metrics; why a
 * dialect should name the server's replay marker.
 */
public final class OutcomesAndEventsExample {
  /** The reference server's dialect: IETF keys and statuses, replays marked. */
  static final Dialect REFERENCE_SERVER = Dialects.custom("reference-server")
      .keyHeader("Idempotency-Key")
      .quoteKey(true)
      .inProgressStatus(409)
      .mismatchStatus(422)
      .replayHeader("Idempotent-Replayed")
      .build();

  private OutcomesAndEventsExample() {}

  /** Submits six payments (one invalid) to a slow, flaky server and reports what happened. */
  public static void main(String[] args) {
    EventCounter counter = new EventCounter();
    IntentListener printer = event -> {
      if (event instanceof IntentEvent.RetryScheduled r) {
        System.out.println("  event: " + r.id() + " retry in " + r.delay().toMillis() + " ms ("
            + r.cause() + ")");
      } else if (event instanceof IntentEvent.Accepted a) {
        System.out.println("  event: " + a.id() + " accepted with 202, polling");
      }
    };
    try (ReferenceServer server = ReferenceServer.builder()
            .faults(FaultPlan.parse("drop=0.2,burst503=0.1,burstlen=2,seed=11"))
            .slowShare(0.4)
            .slowFor(Duration.ofMillis(200))
            .build()
            .start();
        IdempotentClient client = IdempotentClient.builder()
            .dialect(REFERENCE_SERVER)
            .listener(IntentListener.all(counter, printer))
            .build()) {
      List<CompletableFuture<IntentOutcome>> futures = new ArrayList<>();
      for (int i = 1; i <= 6; i++) {
        // The last one has an amount the server refuses: a business rejection, not a failure.
        int amount = i < 6 ? 100 * i : -5;
        futures.add(client.submit(IntentSpec.builder()
            .scope("shop-17")
            .operation("create-payment")
            .post(server.baseUrl() + "payments")
            .jsonBody("{\"amount\":" + amount + ",\"currency\":\"JPY\",\"order\":\"o-" + i
                + "\"}")
            .build()));
      }
      for (CompletableFuture<IntentOutcome> future : futures) {
        System.out.println(explain(future.join()));
      }
      System.out.println("events: " + counter.attempts() + " attempts, " + counter.retries()
          + " retries, " + counter.accepted() + " accepted (202), " + counter.completed()
          + " completed, " + counter.rejected() + " rejected");
      System.out.println("payments created: " + server.stats().effects());
    }
  }

  /** What the app should do with each kind of outcome. */
  static String explain(IntentOutcome outcome) {
    if (outcome instanceof IntentOutcome.Completed c) {
      return outcome.id() + ": paid (" + c.response().status() + "), show the receipt";
    } else if (outcome instanceof IntentOutcome.Rejected r) {
      return outcome.id() + ": refused (" + r.response().status() + "), tell the customer";
    } else if (outcome instanceof IntentOutcome.KeyConflict) {
      return outcome.id() + ": key reused with another payload, a bug to fix";
    } else if (outcome instanceof IntentOutcome.Pending p) {
      return outcome.id() + ": not known yet (" + p.reason() + "), check again at "
          + p.checkAgainAt();
    }
    IntentOutcome.NeedsReconciliation n = (IntentOutcome.NeedsReconciliation) outcome;
    return outcome.id() + ": cannot be resent safely (" + n.reason() + "), reconcile";
  }
}
