package dev.oncely.client;


/**
 * An intent was submitted under a key that already belongs to another payload. Thrown before any
 * I/O: a changed intent is a new intent with a new key, never an update of the old one. The stored
 * record is unchanged.
 */
public class PayloadMismatchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient IntentId id;

  /** Creates the exception for {@code id}; the message shows only the safe key hash. */
  public PayloadMismatchException(IntentId id) {
    super("intent " + id + " already exists with another payload fingerprint; a changed payload"
        + " needs a new intent with a new key");
    this.id = id;
  }

  /** The id (scope, operation, key) whose stored payload differs. */
  public IntentId id() {
    return id;
  }
}
