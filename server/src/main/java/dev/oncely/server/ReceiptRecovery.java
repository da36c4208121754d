package dev.oncely.server;

/**
 * The application's answer for a receipt whose outcome the server cannot know by itself: a
 * handler that died after its effects were committed (recovery point), a handler that died
 * without one on an endpoint that is not safe to re-run, or a receipt left pending by an outbound
 * call. Called by the repeat that finds such a receipt, never on a guess. Several repeats of one pending receipt may ask at once (in one process or in several):
 * a recovery must only read what exists and decide, never create an effect; only one of the
 * decisions is written (each is a compare-and-set on the receipt's revision), and the handler
 * runs at most once for a {@code rerun()}. A receipt whose owner died past its recovery point is
 * held by the repeat that asks (its revision moved), so it is asked once per takeover.
 */
@FunctionalInterface
public interface ReceiptRecovery {
  /**
   * Decides {@code receipt}.
   *
   * @return {@link RecoveryDecision#answer} when the answer can be rendered from what was created
   *     (it settles the receipt), {@link RecoveryDecision#rerun()} when the app checked that no
   *     effect exists (the handler runs again), {@link RecoveryDecision#unknown} to stay pending
   */
  RecoveryDecision recover(Receipt receipt);

  /** Recovers nothing: every such receipt stays pending until an operator resolves it. */
  static ReceiptRecovery none() {
    return receipt -> RecoveryDecision.unknown("no recovery is configured for "
        + receipt.id().operation());
  }
}
