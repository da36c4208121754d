package dev.oncely.client;

import java.util.Objects;

/**
 * The intent cannot be resent safely (it may have been delivered and is past the server's key
 * retention, or it already needs reconciliation), so the {@link IdempotencyInterceptor} sent
 * nothing; it reaches the app as the cause of an {@link IntentIOException}. The intent API reports
 * the same as {@link IntentOutcome.NeedsReconciliation}.
 */
public class NeedsReconciliationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient IntentId id;
  private final String reason;

  /** Creates the exception for intent {@code id} with {@code reason} (safe words, no key). */
  public NeedsReconciliationException(IntentId id, String reason) {
    super("intent " + Objects.requireNonNull(id, "id") + " needs reconciliation: " + reason);
    this.id = id;
    this.reason = reason == null ? "needs reconciliation" : reason;
  }

  /**
   * The outcome as the intent API reports it, without the last answer (the interceptor hands the
   * app no response it could misread as final).
   *
   * @return {@code NeedsReconciliation} with this exception's reason (like {@link #id()}, not
   *     kept by Java serialization)
   */
  public IntentOutcome.NeedsReconciliation outcome() {
    return new IntentOutcome.NeedsReconciliation(id, reason, null);
  }

  /** The intent. */
  public IntentId id() {
    return id;
  }
}
