package dev.oncely.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP answer as the core hands it to an adapter: status, headers (names as given, looked up
 * without regard to case) and the exact body bytes. Immutable.
 */
public final class ServerAnswer {
  private final int status;
  private final Map<String, List<String>> headers;
  private final byte[] body;

  private ServerAnswer(int status, Map<String, List<String>> headers, byte[] body) {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("status must be 100..599, was " + status);
    }
    this.status = status;
    Map<String, List<String>> copy = new LinkedHashMap<>();
    headers.forEach((name, values) -> copy.put(Objects.requireNonNull(name, "header name"),
        List.copyOf(values)));
    this.headers = Collections.unmodifiableMap(copy);
    this.body = body.clone();
  }

  /**
   * An answer with {@code status}, {@code headers} and {@code body}.
   *
   * @throws IllegalArgumentException if the status is outside 100..599
   * @throws NullPointerException if an argument, a header name or a value is null
   */
  public static ServerAnswer of(int status, Map<String, List<String>> headers, byte[] body) {
    return new ServerAnswer(status, Objects.requireNonNull(headers, "headers"),
        Objects.requireNonNull(body, "body"));
  }

  /** A JSON answer: {@code Content-Type: application/json} and {@code json} in UTF-8. */
  public static ServerAnswer json(int status, String json) {
    return of(status, Map.of("Content-Type", List.of("application/json")),
        json.getBytes(StandardCharsets.UTF_8));
  }

  /** The status code. */
  public int status() {
    return status;
  }

  /** Every header, in the order given. */
  public Map<String, List<String>> headers() {
    return headers;
  }

  /** The first value of header {@code name} (any case), or null. */
  public @Nullable String header(String name) {
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
        return e.getValue().get(0);
      }
    }
    return null;
  }

  /** A copy of the body bytes. */
  public byte[] body() {
    return body.clone();
  }

  /** The body's length in bytes. */
  public int bodyLength() {
    return body.length;
  }

  /** This answer with header {@code name} set to {@code value} (any earlier value replaced). */
  public ServerAnswer withHeader(String name, String value) {
    Map<String, List<String>> next = new LinkedHashMap<>();
    headers.forEach((n, v) -> {
      if (!n.equalsIgnoreCase(name)) {
        next.put(n, v);
      }
    });
    next.put(name, List.of(value));
    return new ServerAnswer(status, next, body);
  }

  /** The headers whose names (any case) are in {@code allowed}, lower-cased names compared. */
  Map<String, List<String>> headersIn(java.util.Set<String> allowedLowerCase) {
    Map<String, List<String>> kept = new LinkedHashMap<>();
    headers.forEach((n, v) -> {
      if (allowedLowerCase.contains(n.toLowerCase(Locale.ROOT))) {
        kept.computeIfAbsent(n, k -> new ArrayList<>()).addAll(v);
      }
    });
    return kept;
  }

  /** Describes the answer without its body. */
  @Override
  public String toString() {
    return "ServerAnswer{" + status + ", " + body.length + " bytes}";
  }
}
