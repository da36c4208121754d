package dev.oncely.client;

/**
 * Another process or another open store instance owns the store file. Each file has exactly one
 * owner; share one store instance across threads instead. No descriptor is left open.
 */
public class StoreLockedException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception; the message names the locked path. */
  public StoreLockedException(String message, Throwable cause) {
    super(message, cause);
  }
}
