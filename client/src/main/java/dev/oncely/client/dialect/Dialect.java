package dev.oncely.client.dialect;

import dev.oncely.client.spi.StoredResponse;
import java.time.Duration;

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
  String parseKey(String headerValue);

  /** What {@code response} means. A replayed {@code 5xx} is {@link Verdict#RECONCILE}. */
  Verdict classify(StoredResponse response);

  /** Whether the server marked {@code response} as a replay of a stored result. */
  boolean isReplay(StoredResponse response);

  /** How long the server is known to keep keys; after that a resend may create a second effect. */
  Duration keyRetention();
}
