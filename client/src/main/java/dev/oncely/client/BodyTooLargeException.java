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
    this(size, limit, false);
  }

  /**
   * Creates the exception for a body over a limit of {@code limit}: exactly {@code size} bytes, or,
   * when {@code stoppedReading}, a body of unknown length whose reading stopped at {@code size}
   * bytes, past the limit.
   */
  public BodyTooLargeException(long size, long limit, boolean stoppedReading) {
    super("body", (stoppedReading ? "has no declared length and passed the limit of " + limit
        + " bytes while being read (reading stopped at " + size + " bytes)"
        : "is " + size + " bytes; the limit is " + limit + " bytes")
        + " (raise maxBodyBytes, or send a body this large outside an intent)");
    this.size = size;
    this.limit = limit;
  }

  /** The refused body size in bytes, or where reading stopped for a body of unknown length. */
  public long size() {
    return size;
  }

  /** The configured limit in bytes. */
  public long limit() {
    return limit;
  }
}
