package dev.oncely.payload;

/**
 * A body in a content coding that {@link Fingerprints} decodes decodes to more than the caller's
 * limit (or, whatever the limit, to more than the largest byte array a JVM allocates,
 * {@code Integer.MAX_VALUE - 8} bytes). Decoding stops at the first write past it, so a small
 * compressed body never makes the rule hold an unbounded one; {@link #size()} is where it stopped,
 * not the payload's full size, which stays unknown.
 */
public final class PayloadTooLargeException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** Where decoding stopped, in decoded bytes. */
  private final long size;
  /** The caller's limit on the decoded payload, in bytes. */
  private final long limit;
  /** The body's {@code Content-Encoding}, as declared. */
  private final String contentCoding;

  PayloadTooLargeException(long size, long limit, String contentCoding) {
    super("the body declared Content-Encoding '" + contentCoding + "' and passed the limit of "
        + limit + " bytes once decoded (decoding stopped at " + size + " bytes)");
    this.size = size;
    this.limit = limit;
    this.contentCoding = contentCoding;
  }

  /**
   * Where decoding stopped: past the limit that stopped it (see the class comment) by at most one
   * write of the decoder (8 KiB).
   *
   * @return the decoded bytes produced when decoding stopped
   */
  public long size() {
    return size;
  }

  /**
   * The limit the caller passed to {@link Fingerprints#ofPayload(byte[], String, String,
   * java.util.Collection, long)}.
   *
   * @return the largest decoded payload accepted, in bytes
   */
  public long limit() {
    return limit;
  }

  /**
   * The body's {@code Content-Encoding}, as the caller passed it (several header lines joined
   * with {@code ", "}).
   *
   * @return the declared content coding, never null
   */
  public String contentCoding() {
    return contentCoding;
  }
}
