package dev.oncely.server.internal;

import dev.oncely.client.IntentId;
import dev.oncely.server.ServerDialect;
import java.util.List;

/**
 * Reads the idempotency key from a request's header values by the dialect's format: IETF, a
 * Structured Field string ({@code "..."}, with {@code \"} and {@code \\} escapes, RFC 8941
 * section 3.3.3); Stripe, the raw value. Either way the key must be 1 to {@value #MAX_LENGTH}
 * visible ASCII characters, the rule the client's keys follow.
 */
public final class KeyHeaders {
  /** The longest key accepted. */
  public static final int MAX_LENGTH = IntentId.MAX_PART_LENGTH;

  private KeyHeaders() {}

  /** What the header held. */
  public sealed interface Parsed {}

  /** No key header. */
  public record Missing() implements Parsed {}

  /**
   * A header that is not a key.
   *
   * @param problem what is wrong, in words that name no part of the value
   */
  public record Malformed(String problem) implements Parsed {}

  /**
   * A key.
   *
   * @param key the key, unquoted
   */
  public record Key(String key) implements Parsed {}

  /** Reads the key from every value the request carries of the dialect's key header. */
  public static Parsed parse(ServerDialect dialect, List<String> values) {
    if (values.isEmpty()) {
      return new Missing();
    }
    if (values.size() > 1) {
      return new Malformed("the request carries " + values.size() + " " + dialect.keyHeader()
          + " headers; send one");
    }
    String raw = values.get(0).trim();
    String key = dialect == ServerDialect.IETF ? unquote(raw) : raw;
    if (key == null) {
      return new Malformed(dialect.keyHeader() + " must be a Structured Field string: the key in"
          + " double quotes");
    }
    if (key.isEmpty() || key.length() > MAX_LENGTH) {
      return new Malformed(dialect.keyHeader() + " must hold 1 to " + MAX_LENGTH
          + " characters, it holds " + key.length());
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < '!' || c > '~') {
        return new Malformed(dialect.keyHeader() + " holds a character outside visible ASCII at"
            + " index " + i);
      }
    }
    return new Key(key);
  }

  /** The content of an sf-string, or null if {@code raw} is not one. */
  private static String unquote(String raw) {
    if (raw.length() < 2 || raw.charAt(0) != '"' || raw.charAt(raw.length() - 1) != '"') {
      return null;
    }
    StringBuilder out = new StringBuilder(raw.length() - 2);
    for (int i = 1; i < raw.length() - 1; i++) {
      char c = raw.charAt(i);
      if (c == '\\') {
        if (i + 1 >= raw.length() - 1) {
          return null;
        }
        char next = raw.charAt(++i);
        if (next != '"' && next != '\\') {
          return null;
        }
        out.append(next);
      } else if (c == '"' || c < 0x20 || c > 0x7e) {
        return null;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
