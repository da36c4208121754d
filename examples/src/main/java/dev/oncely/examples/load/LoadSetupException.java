package dev.oncely.examples.load;

/**
 * The store directory cannot be used for the requested run or resume: it holds another run, holds
 * no run to resume, or cannot be opened. The message names the directory and the mismatch; nothing
 * was sent.
 */
public final class LoadSetupException extends Exception {
  /** @param message names the directory and what does not fit */
  public LoadSetupException(String message) {
    super(message);
  }

  /** @param message names the directory and what failed; {@code cause} is the store's error */
  public LoadSetupException(String message, Throwable cause) {
    super(message, cause);
  }
}
