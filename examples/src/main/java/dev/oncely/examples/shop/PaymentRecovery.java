package dev.oncely.examples.shop;

import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptRecovery;
import dev.oncely.server.RecoveryDecision;

/**
 * Decides a payment receipt the server half cannot decide by itself (its handler died, or it is
 * pending on an unknown provider charge), from the ledger:
 *
 * <ul>
 *   <li>the ledger holds the receipt's payment: the effect is committed, whether or not the
 *       receipt recorded it; the answer is rendered from the payment ({@code 201}, the bytes the
 *       handler would have stored) and settles the receipt;
 *   <li>no payment: no local effect exists (the payment and the receipt's token are one row), so
 *       the handler runs again. That is safe for the provider charge too: it runs again under the
 *       same derived key, which the outbound client answers from its store or the provider
 *       replays.
 * </ul>
 *
 * A ledger that cannot be read throws, which the server half turns into "still pending".
 * Thread-safe.
 */
final class PaymentRecovery implements ReceiptRecovery {
  private final PaymentLedger ledger;
  private final PaymentAnswers answers;

  PaymentRecovery(PaymentLedger ledger, PaymentAnswers answers) {
    this.ledger = ledger;
    this.answers = answers;
  }

  @Override
  public RecoveryDecision recover(Receipt receipt) {
    if (!receipt.id().operation().equals(Shop.OPERATION)) {
      return RecoveryDecision.unknown("not a payment receipt: " + receipt.id().operation());
    }
    return ledger.byReceipt(receipt.statusToken())
        .map(payment -> RecoveryDecision.answer(answers.created(payment)))
        .orElseGet(RecoveryDecision::rerun);
  }
}
