package dev.oncely.testing;

/**
 * How the status URL of an accepted ({@code 202}) operation answers while the operation is still
 * processing. When done, both answer {@code 200} with the result.
 */
public enum PollStyle {
  /** {@code 202} with {@code Retry-After} and {@code {"status":"processing"}}. The default. */
  ACCEPTED,
  /**
   * {@code 200 {"status":"processing"}}: a status document whose status code says nothing; the
   * client has to read the body.
   */
  STATUS_DOCUMENT
}
