package dev.oncely.client;

/** Why an intent is still {@link IntentState#PENDING}: its outcome is not known yet. */
public enum PendingReason {
  /**
   * The server accepted the intent ({@code 202 Accepted}) and had not reported it done when the
   * attempts or the deadline ran out: the last answer was that {@code 202}, or an answer of its
   * status URL that did not report the operation finished (still processing, a redirect, an
   * error). The server holds the intent; poll or resend the same key later.
   */
  STILL_PROCESSING,
  /**
   * The server answered that a request with this key is in progress ({@code 409 Conflict} in the
   * IETF and Stripe dialects: the dialect's {@code Verdict.IN_PROGRESS}) when the attempts or the
   * deadline ran out. It never said it accepted this request: an earlier attempt of the intent (one
   * whose answer was lost), or another client sending the same key, holds the key at the server.
   * Usually that request finishes; an answer that never changes points at a request stuck at the
   * server or a second sender of the key. Resend the same key later, never a new one.
   */
  KEY_IN_USE,
  /** Every attempt the {@link RetryPolicy} allows was used. */
  ATTEMPTS_EXHAUSTED,
  /** The {@link RetryPolicy} deadline passed, or the next wait would pass it. */
  DEADLINE_EXCEEDED,
  /** The {@link RetryBudget} for the host was empty: no retry storm was sent. */
  RETRY_BUDGET_EXHAUSTED,
  /** The {@link dev.oncely.client.NetworkGate} stayed closed (offline) until the deadline. */
  OFFLINE,
  /**
   * The drive was stopped from this process: the client or interceptor that owns it was closed,
   * the call was canceled, or the driving thread was interrupted. Also what a drive reports that
   * never started because its owner was closed first (a submit, or an entry of a {@code
   * resumePending} backlog whose turn came after the close): nothing of it was sent then, and the
   * record keeps its last durable state. No attempt leaves after the stop; resume it later.
   */
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
