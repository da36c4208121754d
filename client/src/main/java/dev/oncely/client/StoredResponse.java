package dev.oncely.client;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The last HTTP answer kept for an intent, so repeats and restarts return the same result. Immutable.
 *
 * <p>{@code Set-Cookie} (and every other {@linkplain SecretHeaders secret header}) is dropped on
 * construction: a stored response never holds session state.
 */
public final class StoredResponse {
  private final int status;
  private final Map<String, List<String>> headers;
  private final byte[] body;

  private StoredResponse(int status, Map<String, List<String>> headers, byte[] body) {
    if (status < 100 || status > 999) {
      throw new IllegalArgumentException("status must be a 3-digit HTTP code, was " + status);
    }
    this.status = status;
    this.headers = Headers.copyOf(headers, false);
    this.body = Objects.requireNonNull(body, "body").clone();
  }

  /**
   * Returns a response with {@code status}, {@code headers} (secret headers dropped) and a copy of
   * {@code body}.
   *
   * @throws NullPointerException if {@code headers}, a header name or value, or {@code body} is null
   * @throws IllegalArgumentException if {@code status} is not a 3-digit code
   */
  public static StoredResponse of(int status, Map<String, List<String>> headers, byte[] body) {
    return new StoredResponse(status, headers, body);
  }

  /** The HTTP status code. */
  public int status() {
    return status;
  }

  /** The response headers without secret headers, in arrival order; unmodifiable. */
  public Map<String, List<String>> headers() {
    return headers;
  }

  /** The first value of header {@code name} (case-insensitive), or null. */
  public @Nullable String header(String name) {
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
        return e.getValue().get(0);
      }
    }
    return null;
  }

  /** A copy of the body bytes (empty when the response had none). */
  public byte[] body() {
    return body.clone();
  }

  /** The body length in bytes, without copying it. */
  public int bodyLength() {
    return body.length;
  }

  /**
   * Copies the body into {@code destination} from index {@code at}, allocating nothing (a store
   * writes it straight into its encoding buffer).
   *
   * @throws IndexOutOfBoundsException if {@code destination} has fewer than {@link #bodyLength}
   *     bytes from {@code at}
   */
  public void copyBodyTo(byte[] destination, int at) {
    System.arraycopy(body, 0, destination, at, body.length);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoredResponse other
        && status == other.status
        && headers.equals(other.headers)
        && Arrays.equals(body, other.body);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * status + headers.hashCode()) + Arrays.hashCode(body);
  }

  @Override
  public String toString() {
    return "StoredResponse{status=" + status + ", bodyBytes=" + body.length + "}";
  }
}
