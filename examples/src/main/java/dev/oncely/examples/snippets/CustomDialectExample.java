package dev.oncely.examples.snippets;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.KeyStrategy;
import dev.oncely.client.PayloadMismatchException;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.dialect.Verdict;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerDialect;
import java.nio.charset.StandardCharsets;

/**
 * A custom dialect for a server that is not one of the built-in ones: here a payment provider that
 * takes a plain key, marks replays with {@code Idempotent-Replayed: true} and reports a key reused
 * with another payload as {@code 400} with an {@code idempotency_error} body, which a plain
 * {@code 400} (a business refusal) must not be confused with.
 *
 * <p>Teaches: {@link Dialects#custom}; a classifier for answers a status alone cannot tell apart;
 * replays are recognized; a changed payload under a used key is a {@link IntentOutcome.KeyConflict}
 * from the server, and refused by the client itself before any I/O when it knows the key.
 */
public final class CustomDialectExample {
  private CustomDialectExample() {}

  /** The provider's dialect. */
  static final Dialect PROVIDER = Dialects.custom("my-provider")
      .keyHeader("Idempotency-Key")
      .quoteKey(false)
      .replayHeader("Idempotent-Replayed")
      .inProgressStatus(409)
      .classifier(response -> response.status() == 400
          && new String(response.body(), StandardCharsets.UTF_8).contains("idempotency_error")
          ? Verdict.PAYLOAD_MISMATCH
          : null)
      .build();

  /** Pays, replays from a second client, then reuses the key with another amount. */
  public static void main(String[] args) {
    try (ReferenceServer server = ReferenceServer.builder()
            .dialect(ServerDialect.STRIPE)
            .build()
            .start();
        IdempotentClient checkout = IdempotentClient.builder().dialect(PROVIDER).build();
        IdempotentClient worker = IdempotentClient.builder().dialect(PROVIDER).build()) {
      IntentSpec pay = payment(server, KeyStrategy.random(), 1500);
      System.out.println("checkout pays:          " + describe(checkout.execute(pay)));

      // Another instance that received the same key (say from a queue) sends the same payment.
      IntentSpec sameKey = payment(server, KeyStrategy.existing(pay.key()), 1500);
      System.out.println("worker, same key:       " + describe(worker.execute(sameKey)));

      // A bug reuses the key for another amount: the server refuses, nothing is charged.
      IntentSpec otherAmount = payment(server, KeyStrategy.existing(pay.key()), 9900);
      IdempotentClient fresh = IdempotentClient.builder().dialect(PROVIDER).build();
      System.out.println("other amount, same key: " + describe(fresh.execute(otherAmount)));
      fresh.close();

      // The checkout client knows the key, so it refuses the changed payload before any I/O.
      try {
        checkout.execute(otherAmount);
      } catch (PayloadMismatchException e) {
        System.out.println("checkout refuses it locally: " + e.getClass().getSimpleName());
      }
      System.out.println("payments created: " + server.stats().effects());
    }
  }

  private static IntentSpec payment(ReferenceServer server, KeyStrategy key, int amount) {
    return IntentSpec.builder()
        .scope("shop-17")
        .operation("create-payment")
        .post(server.baseUrl() + "payments")
        .jsonBody("{\"amount\":" + amount + ",\"currency\":\"JPY\",\"order\":\"order-5\"}")
        .keyStrategy(key)
        .build();
  }

  private static String describe(IntentOutcome outcome) {
    if (outcome instanceof IntentOutcome.KeyConflict k) {
      return "key conflict (" + k.response().status() + ")";
    }
    return DurableIntentExample.describe(outcome);
  }
}
