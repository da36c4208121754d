package dev.oncely.client;

import dev.oncely.client.spi.IntentId;
import java.util.Map;

/**
 * Adds headers at send time that must never be stored: {@code Authorization}, cookies, fresh
 * tokens. Called before every attempt, on the driving thread; it may refresh an expired token.
 * Implementations are thread-safe. An exception thrown here ends the attempt like a failed connect
 * (nothing was sent) and is retried.
 */
@FunctionalInterface
public interface HeaderProvider {
  /** Adds nothing. */
  HeaderProvider NONE = (id, url) -> Map.of();

  /**
   * Returns the headers to add to the attempt for intent {@code id} going to {@code url}.
   *
   * @throws Exception if the headers cannot be produced now (the attempt is not sent)
   */
  Map<String, String> headersFor(IntentId id, String url) throws Exception;
}
