package dev.oncely.server.webhook;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * One delivery as it arrived: its headers (names compared without case) and its exact body bytes,
 * which the signature covers. Immutable; {@link #body()} returns the array it was built with (the
 * receiver hands it over and never changes it).
 */
public final class WebhookRequest {
  private final Map<String, List<String>> headers;
  private final byte[] body;

  private WebhookRequest(Map<String, List<String>> headers, byte[] body) {
    TreeMap<String, List<String>> copy = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      copy.merge(e.getKey(), List.copyOf(e.getValue()), (a, b) -> {
        java.util.ArrayList<String> both = new java.util.ArrayList<>(a);
        both.addAll(b);
        return List.copyOf(both);
      });
    }
    this.headers = java.util.Collections.unmodifiableMap(copy);
    this.body = Objects.requireNonNull(body, "body");
  }

  /**
   * A delivery with {@code headers} (each name's values in arrival order) and {@code body}.
   *
   * @throws NullPointerException if an argument, a name or a value is null
   */
  public static WebhookRequest of(Map<String, List<String>> headers, byte[] body) {
    return new WebhookRequest(Objects.requireNonNull(headers, "headers"), body);
  }

  /** The first value of header {@code name} (any case), or null. */
  public @Nullable String header(String name) {
    List<String> values = headers.get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /** Every value of header {@code name} (any case), in arrival order; empty when absent. */
  public List<String> headers(String name) {
    List<String> values = headers.get(name);
    return values == null ? List.of() : values;
  }

  /** The exact body bytes. Do not change them. */
  public byte[] body() {
    return body;
  }

  /** The body's media type ({@code Content-Type} without parameters, lower case), or null. */
  public @Nullable String mediaType() {
    String type = header("Content-Type");
    if (type == null) {
      return null;
    }
    int semi = type.indexOf(';');
    return (semi < 0 ? type : type.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
  }
}
