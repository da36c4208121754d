package dev.oncely.client.dialect;

import dev.oncely.client.StoredResponse;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How one kind of server speaks idempotency: where the key goes, how it is written, what each answer
 * means, how replays are marked and how long the server keeps keys. Get one from {@link Dialects}.
 * Implementations are immutable and thread-safe.
 */
public interface Dialect {
  /** A short name for logs, for example {@code "ietf"}. */
  String name();

  /** The request header carrying the key, for example {@code Idempotency-Key}. */
  String keyHeader();

  /** The header value for {@code key} (quoted as a Structured Field string where the dialect says so). */
  String formatKey(String key);

  /**
   * The key inside a header value written by an app (quotes removed where the dialect quotes), or
   * null if the value is not a valid key for this dialect.
   */
  @Nullable String parseKey(String headerValue);

  /** What {@code response} means. A replayed {@code 5xx} is {@link Verdict#RECONCILE}. */
  Verdict classify(StoredResponse response);

  /** Whether the server marked {@code response} as a replay of a stored result. */
  boolean isReplay(StoredResponse response);

  /** How long the server is known to keep keys; after that a resend may create a second effect. */
  Duration keyRetention();

  /**
   * Whether a {@code 4xx} answer to an attempt sent <em>after</em> an earlier attempt of the same
   * intent may have reached the server is a final business refusal even though the server did not
   * mark it as a replay. Default: none ({@link Dialects#TRUSTED_REFUSALS}): the first attempt may
   * have had its effect. Answers to the very first delivery, and refusals the server marks as a
   * replay of its stored answer, are always trusted.
   */
  default boolean trustsRefusalAfterDelivery(int status) {
    return Dialects.TRUSTED_REFUSALS.contains(status);
  }

  /** Finds a {@code 202}'s status URL in its body when it has no {@code Location}; default none. */
  default StatusUrlResolver statusUrlResolver() {
    return StatusUrlResolver.NONE;
  }

  /** Reads {@code 2xx} answers of a status URL; default: every one means done. */
  default StatusInterpreter statusInterpreter() {
    return StatusInterpreter.ANY_2XX_IS_DONE;
  }

  /**
   * How many times one drive resends the submit after a {@code 202} that names no status URL
   * before it stops {@code Pending} with reason {@code NO_STATUS_URL} (some servers replay that
   * same {@code 202} forever); default {@value Dialects#DEFAULT_MAX_BLIND_RESENDS}.
   */
  default int maxBlindResends() {
    return Dialects.DEFAULT_MAX_BLIND_RESENDS;
  }
}
