package dev.oncely.testing;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How an {@link IdempotentServer} answers a request whose key it knows with another fingerprint
 * (the key reused with another payload). Servers differ: the IETF draft says {@code 422}, some
 * answer {@code 409} or {@code 417}, Stripe answers {@code 400} with an {@code idempotency_error}
 * body. Immutable.
 */
public final class MismatchAnswer {
  private final int status;
  private final String contentType;
  private final byte[] body;

  private MismatchAnswer(int status, String contentType, String body) {
    this.status = status;
    this.contentType = contentType;
    this.body = body.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * {@code 422} with an {@code application/problem+json} body, as
   * {@code draft-ietf-httpapi-idempotency-key-header} specifies. The default.
   */
  public static MismatchAnswer ietf() {
    return new MismatchAnswer(422, "application/problem+json",
        "{\"type\":\"https://iana.org/assignments/http-problem-types#idempotency-key-mismatch\","
            + "\"title\":\"Idempotency-Key is already used with another request payload\"}");
  }

  /**
   * Stripe's: {@code 400} with {@code {"error":{"type":"idempotency_error",...}}}.
   */
  public static MismatchAnswer stripe() {
    return new MismatchAnswer(400, "application/json",
        "{\"error\":{\"type\":\"idempotency_error\",\"message\":\"Keys for idempotent requests"
            + " can only be used with the same parameters they were first used with.\"}}");
  }

  /**
   * {@code status} (e.g. {@code 409} or {@code 417}) with a small JSON body.
   *
   * @throws IllegalArgumentException if {@code status} is not in [400, 499]
   */
  public static MismatchAnswer status(int status) {
    if (status < 400 || status > 499) {
      throw new IllegalArgumentException("mismatch status must be in [400, 499], was " + status);
    }
    return new MismatchAnswer(status, "application/json",
        "{\"error\":\"idempotency key reused with another payload\"}");
  }

  /** The status code. */
  public int statusCode() {
    return status;
  }

  /** The body's media type. */
  public String contentType() {
    return contentType;
  }

  /** A copy of the body bytes. */
  public byte[] body() {
    return body.clone();
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof MismatchAnswer m && m.status == status
        && m.contentType.equals(contentType) && java.util.Arrays.equals(m.body, body);
  }

  @Override
  public int hashCode() {
    return Objects.hash(status, contentType);
  }

  @Override
  public String toString() {
    return "MismatchAnswer[" + status + " " + contentType + "]";
  }
}
