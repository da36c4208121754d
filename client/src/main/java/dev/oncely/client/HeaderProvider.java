package dev.oncely.client;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Adds headers at send time that must never be stored: {@code Authorization}, cookies, fresh
 * tokens. Called before every attempt, on the driving thread; it may refresh an expired token.
 * Implementations are thread-safe. An exception thrown here ends the attempt like a failed connect
 * (nothing was sent) and is retried.
 *
 * <p><b>Refused credentials.</b> When an answer refuses the credentials ({@code 401}, {@code 407}),
 * the provider is called again at once with {@link Target#refresh()} true, and the resend of the
 * same key and bytes carries what it returns. Returning the same headers as the refused attempt
 * carried (or none) means nothing new: the refusal is then judged like any other {@code 4xx}, final
 * only when no earlier attempt may have reached the server. An exception there is retried later.
 *
 * <p><b>Origins.</b> The provider is only asked for attempts to the intent's own origin, or to an
 * origin the app listed with {@code credentialOrigins} of the client builder; a status URL on
 * any other origin (or an https intent's status URL on http) is polled without its headers. The
 * idempotency key header belongs to the SDK: a provider header of that name is ignored (and
 * reported as an event).
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
  @Nullable Map<String, String> headersFor(IntentId id, String url) throws Exception;

  /**
   * Returns the headers for an attempt to {@code target}; the default calls {@link
   * #headersFor(IntentId, String)}. Override it to treat listed foreign origins differently, or to
   * refresh a token when {@link Target#refresh()} says the last answer refused the credentials.
   *
   * @throws Exception if the headers cannot be produced now (the attempt is not sent)
   */
  default @Nullable Map<String, String> headersFor(IntentId id, Target target)
      throws Exception {
    return headersFor(id, target.url());
  }

  /**
   * Where an attempt goes.
   *
   * @param url the absolute URL of the attempt
   * @param crossOrigin whether it is not the intent's own origin (an origin the app listed)
   * @param refresh whether the previous answer ({@code 401}, {@code 407}) refused the credentials
   */
  record Target(String url, boolean crossOrigin, boolean refresh) {}
}
