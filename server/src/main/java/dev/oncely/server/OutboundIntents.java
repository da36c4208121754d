package dev.oncely.server;

import dev.oncely.client.IntentOutcome;
import dev.oncely.client.StoreException;
import dev.oncely.server.internal.StatusTokens;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Settles a receipt that waits on an outbound Oncely intent: the provider call a handler recorded
 * as an intent (in its business transaction, where the store allows it: the outbox) and declared
 * {@linkplain HandlerContext#pending pending} while its outcome was unknown. The receipt settles
 * when the intent has a final outcome ({@code Completed}, {@code Rejected}, {@code KeyConflict}),
 * with the answer the app renders from it; while the intent is pending, needs reconciliation or
 * is not found, the receipt stays pending and repeats get {@code 202}. Stateless.
 *
 * <pre>{@code
 * // in the ReceiptRecovery, asked by a repeat:
 * receipt -> OutboundIntents.decide(
 *     client.outcomeOf(IntentId.of("provider", "charge", OutboundIntents.key(receipt, "charge"))),
 *     outcome -> renderOrder(receipt.reference(), outcome))
 * // or when the intent's drive ends, before any repeat:
 * client.resume(charge).thenAccept(outcome -> OutboundIntents.settle(endpoints, receipt.id(),
 *     policy, outcome, o -> renderOrder(orderId, o)));
 * }</pre>
 */
public final class OutboundIntents {
  private OutboundIntents() {}

  /**
   * The key of the outbound call {@code step} of the request {@code receipt} keeps: the key its
   * handler got from {@link HandlerContext#outboundKey(String)}, found again from the receipt (in
   * a {@link ReceiptRecovery}, on any instance, after any restart).
   *
   * @throws IllegalArgumentException if {@code step} is blank
   */
  public static String key(Receipt receipt, String step) {
    Objects.requireNonNull(receipt, "receipt");
    return StatusTokens.outboundKey(receipt.id(), step);
  }

  /**
   * The recovery decision for a receipt waiting on the intent whose stored outcome is {@code
   * outcome} (as {@code IdempotentClient.outcomeOf} returns it): {@link RecoveryDecision#answer}
   * with {@code render}'s answer when the outcome is final, else {@link RecoveryDecision#unknown}
   * saying why. {@code render} is called only with a final outcome.
   *
   * @throws NullPointerException if an argument, or the rendered answer, is null
   */
  public static RecoveryDecision decide(Optional<IntentOutcome> outcome,
      Function<? super IntentOutcome, ServerAnswer> render) {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(render, "render");
    if (outcome.isEmpty()) {
      return RecoveryDecision.unknown("the outbound intent is not in the client's store");
    }
    IntentOutcome o = outcome.get();
    if (!o.isFinal()) {
      return RecoveryDecision.unknown("the outbound intent is " + o.state());
    }
    return RecoveryDecision.answer(Objects.requireNonNull(render.apply(o), "rendered answer"));
  }

  /**
   * Settles the pending receipt {@code receipt} from {@code outcome} when it is final (see {@link
   * IdempotentEndpoints#settle}); does nothing while it is not.
   *
   * @return whether the receipt was settled now (false: the outcome is not final, or the receipt
   *     is not pending: already settled, or still held by its handler)
   * @throws NullPointerException if an argument, or the rendered answer, is null
   * @throws StoreException if the receipt store failed
   */
  public static boolean settle(IdempotentEndpoints endpoints, dev.oncely.client.IntentId receipt,
      EndpointPolicy policy, IntentOutcome outcome,
      Function<? super IntentOutcome, ServerAnswer> render) {
    Objects.requireNonNull(endpoints, "endpoints");
    Objects.requireNonNull(receipt, "receipt");
    Objects.requireNonNull(policy, "policy");
    if (decide(Optional.of(outcome), render) instanceof RecoveryDecision.Answer a) {
      return endpoints.settle(receipt, a.answer(), policy);
    }
    return false;
  }

}
