package dev.oncely.testing;

/** Writes the JSON string literals of the server's own answer bodies. */
final class JsonText {
  private JsonText() {}

  /** {@code s} as a JSON string literal, quotes included. */
  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }
}
