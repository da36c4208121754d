package dev.oncely.cli.internal.conformance;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One answer (or transport failure) the server gave a probe request. Header names are lower case.
 */
record Answer(int status, Map<String, List<String>> headers, byte[] body, String failure) {
  /** Headers that differ between any two answers and say nothing about idempotency. */
  private static final Set<String> NOISE = Set.of("date", "content-length", "connection",
      "keep-alive", "server", "transfer-encoding", "x-request-id", "request-id", "etag", "age");

  static Answer failed(String failure) {
    return new Answer(-1, Map.of(), new byte[0], failure);
  }

  boolean failedOnTransport() {
    return failure != null;
  }

  boolean success() {
    return status >= 200 && status < 300;
  }

  String header(String name) {
    List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /** Same status and byte-identical body. */
  boolean sameAs(Answer other) {
    return status == other.status && Arrays.equals(body, other.body);
  }

  /**
   * A header this answer carries with a true-ish value ({@code true}, {@code 1}, {@code ?1}) that
   * {@code first} did not: the server's replay marker; or null.
   */
  String markerAgainst(Answer first) {
    for (Map.Entry<String, List<String>> h : headers.entrySet()) {
      if (NOISE.contains(h.getKey()) || first.headers.containsKey(h.getKey())) {
        continue;
      }
      String value = h.getValue().isEmpty() ? "" : h.getValue().get(0).trim().toLowerCase(Locale.ROOT);
      if (value.equals("true") || value.equals("1") || value.equals("?1")) {
        return h.getKey();
      }
    }
    return null;
  }

  /** The status for tables: {@code 201}, or {@code failed (reason)}. */
  String label() {
    return failedOnTransport() ? "failed (" + failure + ")" : Integer.toString(status);
  }

  String bodyText() {
    return new String(body, java.nio.charset.StandardCharsets.UTF_8);
  }
}
