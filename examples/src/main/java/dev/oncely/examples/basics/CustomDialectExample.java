package dev.oncely.examples.basics;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.KeyStrategy;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.dialect.Verdict;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerDialect;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A custom dialect for a server that answers a reused key with another payload by {@code 400} and
 * an {@code idempotency_error} body (as Stripe does): a classifier tells that {@code 400} apart
 * from a business refusal, so the client reports a key conflict instead of a rejection.
 */
public final class CustomDialectExample {
  private CustomDialectExample() {}

  /** Completes one payment, then reuses its key with another amount from a second client. */
  public static void main(String[] args) {
    Dialect acme = Dialects.custom("acme-payments")
        .keyHeader("Idempotency-Key")
        .quoteKey(false)
        .inProgressStatus(409)
        .replayHeader("Idempotent-Replayed")
        .classifier(response -> response.status() == 400
            && new String(response.body(), StandardCharsets.UTF_8).contains("idempotency_error")
            ? Verdict.PAYLOAD_MISMATCH : null)
        .keyRetention(Duration.ofHours(24))
        .build();
    try (ReferenceServer server =
            ReferenceServer.builder().dialect(ServerDialect.STRIPE).build().start();
        IdempotentClient first = IdempotentClient.builder().dialect(acme).build();
        IdempotentClient second = IdempotentClient.builder().dialect(acme).build()) {
      IntentSpec charge = payment(server, 1000, KeyStrategy.random());
      System.out.println("first charge: " + first.execute(charge).state());

      // Another process reuses the same key with another amount: a contract violation.
      IntentOutcome reuse = second.execute(payment(server, 9999, KeyStrategy.existing(charge.key())));
      System.out.println("same key, other amount: " + reuse.state()
          + (reuse instanceof IntentOutcome.KeyConflict k ? " (server said " + k.response().status()
              + ")" : ""));
      System.out.println("payments on the server: " + server.stats().effects());
    }
  }

  private static IntentSpec payment(ReferenceServer server, int amount, KeyStrategy key) {
    return IntentSpec.builder()
        .operation("create-payment")
        .scope("tenant-1")
        .post(server.baseUrl() + "payments")
        .jsonBody("{\"amount\":" + amount + ",\"currency\":\"JPY\",\"order\":\"o-1\"}")
        .keyStrategy(key)
        .build();
  }
}
