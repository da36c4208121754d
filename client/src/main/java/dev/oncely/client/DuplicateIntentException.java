package dev.oncely.client;

/**
 * A record with the same {@link IntentId} (or the same business id in that scope and operation)
 * already exists; the store is unchanged.
 */
public class DuplicateIntentException extends StoreException {
  private static final long serialVersionUID = 1L;

  private final transient IntentId id;

  /** Creates the exception for an attempt to create {@code id} a second time. */
  public DuplicateIntentException(IntentId id, String message) {
    super(message);
    this.id = id;
  }

  /** The id of the record that could not be created. */
  public IntentId id() {
    return id;
  }
}
