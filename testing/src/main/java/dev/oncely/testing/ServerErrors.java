package dev.oncely.testing;

/**
 * What an {@link IdempotentServer} does with a {@code 5xx} its handler produced
 * ({@link Fault#handlerError(int)}). Stripe stores and replays such answers; many servers release
 * the key so the retry runs again.
 */
public enum ServerErrors {
  /** The 5xx is stored with the key and replayed to every retry: the retry cannot succeed. */
  REPLAYED,
  /** The key's record is dropped: the retry is handled as new. The default. */
  RE_EXECUTED
}
