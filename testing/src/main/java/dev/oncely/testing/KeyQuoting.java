package dev.oncely.testing;

/**
 * How an {@link IdempotentServer} reads the value of its key header. The IETF draft makes the key a
 * Structured Field string ({@code "abc"}); many servers take the raw value.
 */
public enum KeyQuoting {
  /** Only a quoted Structured Field string ({@code \"} and {@code \\} escapes); else {@code 400}. */
  QUOTED,
  /** The raw header value is the key, quotes included (a server that never unquotes). */
  PLAIN,
  /** A quoted string is unquoted, anything else taken raw. The default. */
  EITHER
}
