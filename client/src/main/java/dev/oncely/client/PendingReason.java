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
  /** The {@link dev.oncely.client.NetworkGate} stayed closed (offline) until the deadline. */
  OFFLINE,
  /** The driving thread was interrupted or the client closed. */
  INTERRUPTED,
  /** The store failed while recording the outcome; the last durable state is kept. */
  STORE_FAILED,
  /**
   * Another client instance or process changed the record while this one drove it; read from the
   * store, an unfinished record that no drive in this process holds (another process drives it,
   * or its last drive stopped without recording why).
   */
  DRIVEN_ELSEWHERE,
  /**
   * A drive of the intent is running in this process right now (an attempt on the wire, or a
   * wait for the next one): ask again, or join it with {@code resume}.
   */
  IN_PROGRESS,
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
  AMBIGUOUS_ANSWER,
  /**
   * An unexpected exception (a header value the HTTP client refused, a failing call factory)
   * stopped the drive; the record keeps its last durable state, marked maybe delivered when an
   * attempt had started. The cause is attached to the outcome.
   */
  UNEXPECTED_FAILURE;

  /**
   * The reason text a pending record stores: this reason's name, a colon, {@code detail}. The name,
   * never the declaration order, is what the store keeps.
   */
  public String recordText(String detail) {
    return name() + ": " + detail;
  }

  /** The reason a stored reason text names, or null if it names none. */
  static @org.jspecify.annotations.Nullable PendingReason ofRecordText(String text) {
    int colon = text.indexOf(':');
    if (colon <= 0) {
      return null;
    }
    try {
      return valueOf(text.substring(0, colon));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
