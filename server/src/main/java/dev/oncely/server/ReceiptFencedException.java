package dev.oncely.server;

import dev.oncely.client.IntentId;

/**
 * Thrown to a handler that no longer owns its receipt: its lease ran out (the owner froze longer
 * than the lease) and a repeat took the receipt over. Whatever the handler does next is not
 * recorded; it should undo what it can.
 */
public final class ReceiptFencedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** An exception for the receipt of {@code id}, named by its key's safe hash only. */
  public ReceiptFencedException(IntentId id) {
    super("the receipt of " + id.operation() + " " + id.safeKey()
        + " was taken over by another run after this run's lease ran out");
  }
}
