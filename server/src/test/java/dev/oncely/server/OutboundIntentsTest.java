package dev.oncely.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.PendingReason;
import dev.oncely.client.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A receipt that waits on an outbound intent is settled by the intent's final outcome only. */
class OutboundIntentsTest {
  static final IntentId CHARGE = IntentId.of("provider", "charge", "k");
  static final StoredResponse OK = StoredResponse.of(201, Map.of(), new byte[0]);
  static final ServerAnswer RENDERED = ServerAnswer.json(201, "{\"charge\":\"succeeded\"}");

  private static RecoveryDecision decide(Optional<IntentOutcome> outcome) {
    return OutboundIntents.decide(outcome, o -> RENDERED);
  }

  @Test
  void a_final_outcome_settles_with_the_rendered_answer() {
    assertThat(decide(Optional.of(new IntentOutcome.Completed(CHARGE, OK, false))))
        .isEqualTo(RecoveryDecision.answer(RENDERED));
    assertThat(decide(Optional.of(new IntentOutcome.Rejected(CHARGE, OK))))
        .isInstanceOf(RecoveryDecision.Answer.class);
    assertThat(decide(Optional.of(new IntentOutcome.KeyConflict(CHARGE, OK))))
        .isInstanceOf(RecoveryDecision.Answer.class);
  }

  @Test
  void a_pending_unreconciled_or_missing_intent_keeps_the_receipt_pending_without_rendering() {
    AtomicReference<IntentOutcome> rendered = new AtomicReference<>();
    for (Optional<IntentOutcome> outcome : List.<Optional<IntentOutcome>>of(
        Optional.of(new IntentOutcome.Pending(CHARGE, PendingReason.ATTEMPTS_EXHAUSTED, "lost",
            null, null, null)),
        Optional.of(new IntentOutcome.NeedsReconciliation(CHARGE, "past retention", null)),
        Optional.empty())) {
      assertThat(OutboundIntents.decide(outcome, o -> {
        rendered.set(o);
        return RENDERED;
      })).isInstanceOf(RecoveryDecision.Unknown.class);
    }
    assertThat(rendered.get()).isNull();
  }

  @Test
  void the_key_found_from_the_receipt_is_the_key_the_handler_got() throws Exception {
    ReceiptStore receipts = ReceiptStore.on(new InMemoryIntentStore());
    EndpointPolicy policy = EndpointPolicy.builder("orders.create").build();
    AtomicReference<String> handlerKey = new AtomicReference<>();
    try (IdempotentEndpoints endpoints = IdempotentEndpoints.builder(receipts).build()) {
      endpoints.handle(InboundRequest.builder("POST", "/orders")
          .header("Idempotency-Key", "\"k1\"").header("Content-Type", "application/json")
          .body("{}".getBytes(StandardCharsets.UTF_8)).principal("alice").build(), policy,
          context -> {
            handlerKey.set(context.outboundKey("charge"));
            return ServerAnswer.json(201, "{}");
          });
    }
    Receipt receipt = receipts.get(IntentId.of("alice", "orders.create", "k1")).orElseThrow();
    assertThat(OutboundIntents.key(receipt, "charge")).isEqualTo(handlerKey.get())
        .isNotEqualTo(OutboundIntents.key(receipt, "refund"));
    assertThatThrownBy(() -> OutboundIntents.key(receipt, " "))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
