package dev.oncely.client.dialect;

/** What one server answer means for an intent, as decided by a {@link Dialect}. */
public enum Verdict {
  /** The effect happened (2xx other than 202, or a replay of a stored success). */
  COMPLETED,
  /** {@code 202 Accepted}: still processing; poll the status URL or resend with the same key. */
  ACCEPTED,
  /** Another request with this key is being processed (IETF {@code 409}): wait, resend same key. */
  IN_PROGRESS,
  /** The key was used with another payload: terminal key conflict, never a new key. */
  PAYLOAD_MISMATCH,
  /** Transient or uncertain ({@code 1xx}, {@code 408}, {@code 425}, {@code 429}, every {@code 5xx}): retry same key. */
  RETRY,
  /**
   * A business refusal (other 4xx): terminal, the response is kept, if the engine can trust it (the
   * first delivery, or a status in {@link Dialect#trustsRefusalAfterDelivery}); never for a 5xx.
   */
  REJECTED,
  /**
   * Retrying cannot help and the outcome is uncertain (a replayed {@code 5xx}, or the server said
   * not to retry a server error): the intent needs reconciliation.
   */
  RECONCILE
}
