package dev.oncely.testing;

/**
 * What an {@link IdempotentServer} compares to decide that a repeat of a key carries "the same
 * request". The method always counts, the path never (a key names one intent wherever it is
 * resent, e.g. after a {@code 308}); whether the query string counts is a separate setting
 * ({@link IdempotentServer.Builder#fingerprintQuery(boolean)}).
 */
public enum FingerprintRule {
  /** The exact body bytes: reordered JSON keys or changed whitespace are a mismatch. The default. */
  EXACT_BYTES,
  /**
   * The JSON body with object keys sorted and whitespace dropped (a body that is not JSON is
   * compared by its bytes): {@code {"a":1,"b":2}} and {@code {"b":2,"a":1}} match.
   */
  JSON_ANY_KEY_ORDER,
  /** No fingerprint: a key repeat is always a replay, whatever the payload. */
  NONE
}
