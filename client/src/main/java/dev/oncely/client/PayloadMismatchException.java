package dev.oncely.client;


/**
 * An intent was submitted under a key (or business id) whose record holds another payload.
 * Thrown before any I/O; the stored record is unchanged and nothing was sent. Framing that carries
 * no meaning is never a reason: JSON member order and volatile fields, and a multipart boundary,
 * are left out of the comparison. A re-issue of the same business intent must carry the payload
 * that was stored; its outcome can be read with {@code outcomeOf} and reconciled. Sending the
 * intent again under a new key is never the fix: if an earlier attempt was delivered, that is a
 * second effect.
 */
public class PayloadMismatchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient IntentId id;

  /** Creates the exception for {@code id}; the message shows only the safe key hash. */
  public PayloadMismatchException(IntentId id) {
    super("intent " + id + " is already recorded with a different payload; nothing was sent and"
        + " the record is unchanged. Re-issue it with the payload that was stored, or read its"
        + " outcome (outcomeOf) and reconcile; a new key for the same business intent could be a"
        + " second effect");
    this.id = id;
  }

  /** The id (scope, operation, key) whose stored payload differs. */
  public IntentId id() {
    return id;
  }
}
