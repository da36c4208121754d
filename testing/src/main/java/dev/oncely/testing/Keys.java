package dev.oncely.testing;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** Reads an idempotency key header by a {@link KeyQuoting} rule. */
final class Keys {
  private Keys() {}

  /**
   * {@code name} if it can name the key header.
   *
   * @throws IllegalArgumentException if blank
   * @throws NullPointerException if null
   */
  static String headerName(String name) {
    if (java.util.Objects.requireNonNull(name, "keyHeader").isBlank()) {
      throw new IllegalArgumentException("keyHeader must not be blank");
    }
    return name;
  }

  /** The key, or null when absent; throws with a message safe to send back (never the key). */
  static @Nullable String read(String name, List<String> values, KeyQuoting quoting,
      int maxLength)
      throws MalformedKeyException {
    if (values.isEmpty()) {
      return null;
    }
    if (values.size() > 1) {
      throw new MalformedKeyException(name + " was sent " + values.size() + " times; send it once");
    }
    String raw = values.get(0).trim();
    boolean quoted = raw.startsWith("\"");
    if (quoting == KeyQuoting.QUOTED && !quoted) {
      throw new MalformedKeyException(name + " must be a quoted string");
    }
    String key = quoted && quoting != KeyQuoting.PLAIN ? unquote(name, raw) : raw;
    if (key.isEmpty()) {
      throw new MalformedKeyException(name + " is empty");
    }
    if (key.length() > maxLength) {
      throw new MalformedKeyException(
          name + " is " + key.length() + " characters; the limit is " + maxLength);
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        throw new MalformedKeyException(
            name + " has a character outside printable ASCII at index " + i);
      }
    }
    return key;
  }

  private static String unquote(String name, String raw) throws MalformedKeyException {
    StringBuilder out = new StringBuilder();
    for (int i = 1; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '\\') {
        if (i + 1 >= raw.length() || (raw.charAt(i + 1) != '"' && raw.charAt(i + 1) != '\\')) {
          throw new MalformedKeyException(name + " has a bad escape at index " + i);
        }
        out.append(raw.charAt(++i));
      } else if (c == '"') {
        if (i != raw.length() - 1) {
          throw new MalformedKeyException(name + " has text after its closing quote");
        }
        return out.toString();
      } else {
        out.append(c);
      }
    }
    throw new MalformedKeyException(name + " opens a quoted string but never closes it");
  }

  /** The header is present but unusable. */
  static final class MalformedKeyException extends Exception {
    private static final long serialVersionUID = 1L;

    MalformedKeyException(String message) {
      super(message);
    }
  }
}
