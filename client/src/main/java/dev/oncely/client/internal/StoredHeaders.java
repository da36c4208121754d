package dev.oncely.client.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads a stored header map (a record's or a stored response's: names as sent, values in order),
 * by name in any case. One place for the few header rules the value types, the drive and the
 * HTTP side all read, such as the stored body's content coding.
 */
public final class StoredHeaders {
  /** The header naming the coding the stored body bytes are in. */
  public static final String CONTENT_ENCODING = "Content-Encoding";

  private StoredHeaders() {}

  /**
   * The values of header {@code name} (any case) in a stored header map, in order; empty when
   * absent.
   */
  public static List<String> values(Map<String, List<String>> headers, String name) {
    List<String> values = new ArrayList<>(1);
    headers.forEach((n, v) -> {
      if (n.equalsIgnoreCase(name)) {
        values.addAll(v);
      }
    });
    return values;
  }

  /**
   * The {@code Content-Encoding} of a stored header map, several lines joined with {@code ", "}
   * as HTTP reads them (RFC 9110 section 5.3), or null when there is none: the coding of the body
   * stored beside it.
   */
  public static String contentCoding(Map<String, List<String>> headers) {
    List<String> values = values(headers, CONTENT_ENCODING);
    return values.isEmpty() ? null : String.join(", ", values);
  }
}
