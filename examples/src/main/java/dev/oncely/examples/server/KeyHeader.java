package dev.oncely.examples.server;

import java.util.List;

/**
 * Reads the {@code Idempotency-Key} header leniently in both dialects: a quoted Structured Field
 * string ({@code "abc"}, with {@code \"} and {@code \\} escapes) or a plain token ({@code abc}).
 */
final class KeyHeader {
  static final String NAME = "Idempotency-Key";
  static final int MAX_LENGTH = 255;

  private KeyHeader() {}

  /**
   * Returns the key, or null when the header is absent.
   *
   * @throws MalformedKeyException with a message safe to send back (it never echoes the key)
   */
  static String read(List<String> values) throws MalformedKeyException {
    if (values == null || values.isEmpty()) {
      return null;
    }
    if (values.size() > 1) {
      throw new MalformedKeyException(NAME + " was sent " + values.size() + " times; send it once");
    }
    String raw = values.get(0).trim();
    String key = raw.startsWith("\"") ? unquote(raw) : raw;
    if (key.isEmpty()) {
      throw new MalformedKeyException(NAME + " is empty");
    }
    if (key.length() > MAX_LENGTH) {
      throw new MalformedKeyException(
          NAME + " is " + key.length() + " characters; the limit is " + MAX_LENGTH);
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        throw new MalformedKeyException(
            NAME + " has a character outside printable ASCII at index " + i);
      }
    }
    return key;
  }

  private static String unquote(String raw) throws MalformedKeyException {
    StringBuilder out = new StringBuilder();
    for (int i = 1; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '\\') {
        if (i + 1 >= raw.length() || (raw.charAt(i + 1) != '"' && raw.charAt(i + 1) != '\\')) {
          throw new MalformedKeyException(NAME + " has a bad escape at index " + i);
        }
        out.append(raw.charAt(++i));
      } else if (c == '"') {
        if (i != raw.length() - 1) {
          throw new MalformedKeyException(NAME + " has text after its closing quote");
        }
        return out.toString();
      } else {
        out.append(c);
      }
    }
    throw new MalformedKeyException(NAME + " opens a quoted string but never closes it");
  }

  /** The header is present but unusable; the message is safe to send back. */
  static final class MalformedKeyException extends Exception {
    MalformedKeyException(String message) {
      super(message);
    }
  }
}
