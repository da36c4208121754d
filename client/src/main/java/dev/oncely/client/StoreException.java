package dev.oncely.client;

/**
 * An {@link IntentStore} could not do what was asked. The message names the store (path or kind)
 * and, where one is involved, the record by its {@linkplain IntentId#safeKey() safe key}; it never
 * holds a key, a payload or a credential.
 */
public class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with a message naming the store and the rule or failure. */
  public StoreException(String message) {
    super(message);
  }

  /** Creates the exception with a message and the engine's own failure as the cause. */
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
