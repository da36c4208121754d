package dev.oncely.examples.shop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentStore;
import dev.oncely.client.KeyStrategy;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.server.HandlerContext;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;

/**
 * The shop's outbound call: the charge at the payment provider, sent as an Oncely intent through
 * an {@link IdempotentClient} with its own durable store. Its key is {@link
 * HandlerContext#outboundKey(String) outboundKey("charge")}, derived from the payment's receipt,
 * and its business id is the receipt's status token; so a handler that runs again for the same
 * receipt (after a crash, or a repeat of a pending payment) continues the same intent with the
 * same key: the client answers from its store when the charge already completed, or resends it
 * and the provider replays. The provider never charges twice for one payment.
 *
 * <p>The charge is {@code POST <provider>} with {@code {"amount":..,"currency":..,"order":..,
 * "reference":<receipt token>}}, IETF dialect (a quoted {@code Idempotency-Key}). Each call is
 * bounded (a few attempts within a deadline) so a handler never holds its request for long: an
 * outcome still unknown then makes the payment pending ({@code 202}). Thread-safe.
 */
final class ProviderCharges implements AutoCloseable {
  /** The operation the charges are recorded under in the outbound store. */
  static final String OPERATION = "provider.charge";
  /** The scope the charges are recorded under. */
  static final String SCOPE = "shop";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String url;
  private final IntentStore store;
  private final IdempotentClient client;

  ProviderCharges(String url, IntentStore store, Duration attemptTimeout) {
    this.url = url;
    this.store = store;
    this.client = IdempotentClient.builder()
        .store(store)
        .dialect(Dialects.ietf())
        .retryPolicy(RetryPolicy.builder()
            .maxAttempts(4)
            .baseDelay(Duration.ofMillis(100))
            .maxDelay(Duration.ofSeconds(1))
            .attemptTimeout(attemptTimeout)
            .deadline(attemptTimeout.multipliedBy(4).plusSeconds(2))
            .build())
        .build();
  }

  /** What the provider said about a charge. */
  sealed interface Result permits Charged, Declined, Unknown {}

  /**
   * Charged.
   *
   * @param chargeId the provider's id of the charge (its answer's {@code id}), or the charge's
   *     safe key hash when the answer names none
   */
  record Charged(String chargeId) implements Result {}

  /**
   * Refused for good (a 4xx the client recorded as a rejection).
   *
   * @param status the provider's status
   */
  record Declined(int status) implements Result {}

  /**
   * Not known yet.
   *
   * @param reference the charge intent's safe name, for the receipt
   * @param reason why, for operators
   */
  record Unknown(String reference, String reason) implements Result {}

  /** Charges {@code request} for the receipt {@code context} owns; blocks for a bounded time. */
  Result charge(HandlerContext context, PaymentRequest request) {
    String token = context.receipt().statusToken();
    ObjectNode body = JSON.createObjectNode();
    body.put("amount", request.amount());
    body.put("currency", request.currency());
    if (request.order() != null) {
      body.put("order", request.order());
    }
    body.put("reference", token);
    IntentSpec spec = IntentSpec.builder()
        .operation(OPERATION)
        .scope(SCOPE)
        .post(url)
        .jsonBody(body.toString())
        .businessId(token)
        .keyStrategy(KeyStrategy.existing(context.outboundKey("charge")))
        .build();
    IntentOutcome outcome = client.execute(spec);
    String reference = "provider charge " + spec.id().safeKey();
    if (outcome instanceof IntentOutcome.Completed done) {
      return new Charged(chargeId(done.response().body(), spec.id().safeKey()));
    }
    if (outcome instanceof IntentOutcome.Rejected rejected) {
      return new Declined(rejected.response().status());
    }
    if (outcome instanceof IntentOutcome.Pending pending) {
      return new Unknown(reference, "the provider charge is pending: " + pending.reason());
    }
    return new Unknown(reference, "the provider charge needs reconciliation ("
        + outcome.getClass().getSimpleName() + ")");
  }

  /** Whether a charge is unfinished in the outbound store. */
  boolean hasUnfinished() {
    return !store.listUnfinished().isEmpty();
  }

  /** Removes every finished charge record (for a reset); returns how many. */
  int purgeFinished(Instant farFuture) {
    return store.purgeExpired(farFuture);
  }

  /** Closes the client and the outbound store. */
  @Override
  public void close() {
    try {
      client.close();
    } finally {
      store.close();
    }
  }

  private static String chargeId(byte[] answer, String fallback) {
    try {
      JsonNode id = JSON.readTree(answer).get("id");
      return id != null && id.isTextual() ? id.textValue() : fallback;
    } catch (IOException | RuntimeException e) {
      return fallback;
    }
  }
}
