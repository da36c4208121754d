package dev.oncely.client.event;

import dev.oncely.client.IntentId;
import dev.oncely.client.PendingReason;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Something that happened while driving an intent. Events never carry keys, payloads or header
 * values, nor any value the server sent but its status codes (no {@code Location}, status URL,
 * {@code Retry-After} value or body text, also not inside a reason or detail text): the {@link
 * IntentId} prints only a short hash of its key. Attempts are numbered from 1 within one record's
 * life (restarts continue the count).
 */
public sealed interface IntentEvent {
  /** The intent the event belongs to. */
  IntentId id();

  /** An attempt (or a poll of a status URL) is about to be sent. */
  record AttemptStarted(IntentId id, int attempt, String method, String host, boolean poll)
      implements IntentEvent {}

  /**
   * An attempt ended: with an HTTP status, or with {@code status == -1} and the failure's class
   * name (timeout, reset, refused connect), or {@link #RESENT_BY_CLIENT} when the HTTP client sent
   * the same request again on its own before any answer reached the engine (OkHttp's silent resend
   * after a dropped connection): the resend is the next attempt, with its own {@link
   * AttemptStarted}, and this one's {@code elapsed} is zero because the moment the resend started
   * is not known.
   */
  record AttemptEnded(IntentId id, int attempt, int status, @Nullable String failure,
      Duration elapsed)
      implements IntentEvent {
    /**
     * The {@link #failure()} of an attempt the HTTP client sent again on its own before any
     * answer reached the engine.
     */
    public static final String RESENT_BY_CLIENT = "ResentByClient";
  }

  /** Another attempt will be sent after {@code delay}; {@code cause} says why, in safe words. */
  record RetryScheduled(IntentId id, int nextAttempt, Duration delay, String cause)
      implements IntentEvent {}

  /** The server answered {@code 202 Accepted}; {@code pollUrl} tells whether it gave a status URL. */
  record Accepted(IntentId id, boolean pollUrl) implements IntentEvent {}

  /** The server said a request with this key is still in progress (for example {@code 409}). */
  record InProgress(IntentId id, int status) implements IntentEvent {}

  /** The server said the key was used with another payload; the intent is a key conflict. */
  record PayloadMismatch(IntentId id, int status) implements IntentEvent {}

  /** The intent completed; {@code replayed} if the server marked the answer as a replay. */
  record Completed(IntentId id, int status, boolean replayed) implements IntentEvent {}

  /** The server refused the intent with a business error. */
  record Rejected(IntentId id, int status) implements IntentEvent {}

  /** The drive stopped with the outcome unknown; the intent stays pending. */
  record GaveUpUnknown(IntentId id, PendingReason reason, String detail) implements IntentEvent {}

  /** The intent cannot be resent safely and needs reconciliation. */
  record NeedsReconciliation(IntentId id, String reason) implements IntentEvent {}

  /**
   * A {@code Retry-After} value could not be parsed and was ignored (the wait came from the
   * backoff instead); {@code length} is how many characters it had. The value itself is not
   * carried: no event carries a value the server sent (the record's stored response keeps it).
   */
  record MalformedRetryAfter(IntentId id, int length) implements IntentEvent {}

  /** A retry was refused because the host's retry budget is empty. */
  record BudgetExhausted(IntentId id, String host) implements IntentEvent {}

  /**
   * The intent's record was created durably (before the first byte of its first attempt). After
   * {@code IdempotentClient.submit} this is the moment the intent survives a crash: an app that
   * must promise "we have your payment" to its own caller waits for it (or uses {@code execute}).
   */
  record Recorded(IntentId id) implements IntentEvent {}

  /**
   * A header named like the idempotency key header was ignored: the key header belongs to the SDK
   * ({@code source} names who set it, for example {@code "headerProvider"}).
   */
  record KeyHeaderIgnored(IntentId id, String source) implements IntentEvent {}
}
