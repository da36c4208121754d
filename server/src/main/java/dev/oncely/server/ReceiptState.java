package dev.oncely.server;

/**
 * Where one idempotent request stands on the server. {@code PROCESSING -> COMPLETED | PENDING |
 * RELEASED}, {@code PENDING -> COMPLETED}, and {@code RELEASED -> PROCESSING} when the next repeat
 * reserves the key again.
 */
public enum ReceiptState {
  /** A handler owns the receipt under a lease; its effects may be under way. */
  PROCESSING,
  /** The answer is stored; every repeat with the same payload gets it back byte for byte. */
  COMPLETED,
  /**
   * An effect's outcome is not known (an outbound call still unknown, or a handler that stopped
   * after effects may have happened): repeats get {@code 202}; never run again on a guess.
   */
  PENDING,
  /**
   * The handler failed before any effect was committed (it threw, or answered a server error):
   * the reservation is given back and the next repeat runs the handler.
   */
  RELEASED;

  /** Whether a repeat is answered from the receipt without running the handler again. */
  public boolean isSettled() {
    return this == COMPLETED;
  }
}
