package dev.oncely.client;

/**
 * The body of an intent is larger than the configured limit, as sent or, for a body with a content
 * coding the SDK decodes (gzip, deflate), once decoded; nothing was stored or sent.
 */
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

  private BodyTooLargeException(String message, long size, long limit) {
    super("body", message);
    this.size = size;
    this.limit = limit;
  }

  /**
   * The exception for a body whose content coding decodes to more than {@code limit} bytes:
   * decoding stopped at {@code size} bytes, past the limit. The limit bounds the decoded payload
   * as well as the bytes on the wire, so a small compressed body never makes the SDK hold an
   * unbounded one.
   *
   * @param size where decoding stopped, in decoded bytes
   * @param limit the configured limit in bytes
   * @param contentCoding the body's {@code Content-Encoding}, as declared
   * @return the exception
   */
  public static BodyTooLargeException decoded(long size, long limit, String contentCoding) {
    return new BodyTooLargeException("declared Content-Encoding '" + contentCoding
        + "' and passed the limit of " + limit + " bytes once decoded (decoding stopped at "
        + size + " bytes; the limit bounds the decoded payload) (raise maxBodyBytes, or send a"
        + " body this large outside an intent)", size, limit);
  }

  /**
   * The refused body size in bytes, or where reading (or decoding, see {@link #decoded}) stopped
   * for a body of unknown length.
   */
  public long size() {
    return size;
  }

  /** The configured limit in bytes. */
  public long limit() {
    return limit;
  }
}
