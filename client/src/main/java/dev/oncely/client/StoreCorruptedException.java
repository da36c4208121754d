package dev.oncely.client;

/**
 * Stored bytes failed verification (truncated, overwritten, bit-flipped or written by an unknown
 * future version). Nothing is deleted: the message names the path and what failed, with numbers.
 */
public class StoreCorruptedException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception; the message names the path and the check that failed. */
  public StoreCorruptedException(String message) {
    super(message);
  }

  /** Creates the exception with the engine's failure as the cause. */
  public StoreCorruptedException(String message, Throwable cause) {
    super(message, cause);
  }
}
