package dev.oncely.server;

import java.util.Objects;

/**
 * What {@link ReceiptRecovery} decided for a receipt: one of {@link Answer}, {@link Rerun} or
 * {@link Unknown}.
 */
public sealed interface RecoveryDecision {
  /** The receipt is settled with {@code answer}, which every repeat then gets. */
  static RecoveryDecision answer(ServerAnswer answer) {
    return new Answer(answer);
  }

  /** No effect exists (the app checked): the handler runs again under the same key. */
  static RecoveryDecision rerun() {
    return new Rerun();
  }

  /** The outcome is still unknown: the receipt stays pending, repeats get {@code 202}. */
  static RecoveryDecision unknown(String reason) {
    return new Unknown(reason);
  }

  /**
   * Settles with an answer.
   *
   * @param answer the answer every repeat gets
   */
  record Answer(ServerAnswer answer) implements RecoveryDecision {
    /** Checks the answer. */
    public Answer {
      Objects.requireNonNull(answer, "answer");
    }
  }

  /** Runs the handler again. */
  record Rerun() implements RecoveryDecision {}

  /**
   * Stays pending.
   *
   * @param reason why, for operators
   */
  record Unknown(String reason) implements RecoveryDecision {
    /** Checks the reason. */
    public Unknown {
      Objects.requireNonNull(reason, "reason");
    }
  }
}
