package dev.oncely.client;

/** Why an intent is still {@link IntentState#PENDING}: its outcome is not known yet. */
public enum PendingReason {
  /**
   * The server accepted the intent ({@code 202}) and was still processing it when the attempts or
   * the deadline ran out.
   */
  STILL_PROCESSING,
  /** Every attempt the {@link RetryPolicy} allows was used. */
  ATTEMPTS_EXHAUSTED,
  /** The {@link RetryPolicy} deadline passed, or the next wait would pass it. */
  DEADLINE_EXCEEDED,
  /** The {@link RetryBudget} for the host was empty: no retry storm was sent. */
  RETRY_BUDGET_EXHAUSTED,
  /** The {@link dev.oncely.client.spi.NetworkGate} stayed closed (offline) until the deadline. */
  OFFLINE,
  /** The driving thread was interrupted or the client closed. */
  INTERRUPTED,
  /** The store failed while recording the outcome; the last durable state is kept. */
  STORE_FAILED,
  /** Another client instance or process changed the record while this one drove it. */
  DRIVEN_ELSEWHERE,
  /**
   * The server kept answering {@code 202 Accepted} without naming a status URL; resends were
   * bounded (see {@code Dialect.maxBlindResends()}) because some servers replay that answer forever.
   */
  NO_STATUS_URL,
  /**
   * After an attempt that may have been delivered, the server answered with a refusal it did not
   * mark as a replay ({@code 400}, {@code 401}, {@code 403}, {@code 404}, ...): that does not prove
   * the first attempt had no effect; resends with fresh credentials did not settle it.
   */
  AMBIGUOUS_ANSWER
}
