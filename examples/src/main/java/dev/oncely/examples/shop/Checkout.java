package dev.oncely.examples.shop;

import dev.oncely.client.StoreException;
import dev.oncely.server.HandlerContext;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptFencedException;
import dev.oncely.server.ServerAnswer;
import java.lang.System.Logger.Level;

/**
 * The handler of {@code POST /payments}: runs only while the request holds its receipt (the
 * server half reserved the key before calling it). In order:
 *
 * <ol>
 *   <li>the business rules ({@link PaymentRequest}): a refusal is a {@code 400}, stored and
 *       replayed, no effect;
 *   <li>with a provider, the charge ({@link ProviderCharges}) under a key derived from the
 *       receipt; declined: {@code 402}, stored; unknown: the receipt goes pending, {@code 202};
 *   <li>the business commit ({@link PaymentLedger#charge}): the payment and the receipt's token
 *       in one SQLite transaction, or the payment that token already has;
 *   <li>the recovery point on the receipt ({@link HandlerContext#effectsCommitted}), right after
 *       the business commit;
 *   <li>{@code 201} + the payment, which the server half stores as the receipt's answer.
 * </ol>
 *
 * <p>The gap between steps 3 and 4 is the crash window of keeping the business data in a store
 * of its own: a crash there leaves the payment committed and a receipt that does not know it.
 * It is closed by step 3 itself, not by luck: the payment row names its receipt, so {@link
 * PaymentRecovery} finds it and completes the receipt from it, and a handler that runs again for
 * that receipt gets the same payment back from the ledger. Thread-safe.
 */
final class Checkout {
  private static final System.Logger LOG = System.getLogger(Checkout.class.getName());

  private final PaymentLedger ledger;
  private final ProviderCharges provider;
  private final PaymentAnswers answers;
  private final ShopProbe probe;

  /** A checkout; {@code provider} is null when payments are local. */
  Checkout(PaymentLedger ledger, ProviderCharges provider, PaymentAnswers answers,
      ShopProbe probe) {
    this.ledger = ledger;
    this.provider = provider;
    this.answers = answers;
    this.probe = probe;
  }

  /** Handles the request whose receipt {@code context} owns and whose body is {@code body}. */
  ServerAnswer pay(HandlerContext context, byte[] body) {
    PaymentRequest.Parsed parsed = PaymentRequest.parse(body);
    if (parsed instanceof PaymentRequest.Invalid invalid) {
      return answers.refused(invalid);
    }
    PaymentRequest request = ((PaymentRequest.Valid) parsed).request();
    Receipt receipt = context.receipt();
    probe.reached(ShopStep.HANDLER_STARTED, request.order());
    String providerCharge = null;
    if (provider != null) {
      ProviderCharges.Result charged = provider.charge(context, request);
      probe.reached(ShopStep.PROVIDER_ANSWERED, request.order());
      if (charged instanceof ProviderCharges.Declined declined) {
        return answers.declined(declined.status());
      }
      if (charged instanceof ProviderCharges.Unknown unknown) {
        context.pending(unknown.reference(), unknown.reason());
        return answers.pending();
      }
      providerCharge = ((ProviderCharges.Charged) charged).chargeId();
    }
    PaymentLedger.Charge charge = ledger.charge(receipt.statusToken(), receipt.id().safeKey(),
        request, providerCharge);
    probe.reached(ShopStep.BUSINESS_COMMITTED, request.order());
    if (!charge.created() && !charge.payment().pays(request)) {
      // The key's receipt was purged after its retention and the key came back with another
      // payment: the payment it made stands, and this one is refused, never answered with it.
      return answers.keyReused();
    }
    recordRecoveryPoint(context, charge.payment());
    probe.reached(ShopStep.RECOVERY_POINT_RECORDED, request.order());
    return answers.created(charge.payment());
  }

  /**
   * Records that the payment is committed. If that fails the payment still stands and this
   * caller still gets it: the receipt is completed later from the ledger by {@link
   * PaymentRecovery} (a run that took the receipt over already finds the payment there).
   */
  private static void recordRecoveryPoint(HandlerContext context, Payment payment) {
    try {
      context.effectsCommitted(payment.id());
    } catch (ReceiptFencedException | StoreException e) {
      LOG.log(Level.WARNING, "payment " + payment.id() + " is committed but its receipt "
          + context.receipt().id().safeKey() + " could not record it ("
          + e.getClass().getSimpleName() + "); recovery completes it from the ledger");
    }
  }
}
