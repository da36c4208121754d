package dev.oncely.client;

/** The body of an intent is larger than the configured limit; nothing was stored or sent. */
public class BodyTooLargeException extends InvalidIntentException {
  private static final long serialVersionUID = 1L;

  /** The body's size in bytes. */
  private final long size;
  /** The configured limit in bytes. */
  private final long limit;

  /** Creates the exception for a body of {@code size} bytes over a limit of {@code limit}. */
  public BodyTooLargeException(long size, long limit) {
    super("body", "is " + size + " bytes; the limit is " + limit + " bytes (see maxBodyBytes)");
    this.size = size;
    this.limit = limit;
  }

  /** The refused body size in bytes. */
  public long size() {
    return size;
  }

  /** The configured limit in bytes. */
  public long limit() {
    return limit;
  }
}
