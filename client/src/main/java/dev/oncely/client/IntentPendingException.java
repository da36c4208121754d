package dev.oncely.client;

import java.util.Objects;

/**
 * The outcome of an intent sent through the {@link IdempotencyInterceptor} is not known yet, and
 * the last answer was one the app could misread as final (a {@code 3xx} or {@code 4xx} after an
 * attempt that may have been delivered): it reaches the app as the cause of an {@link
 * IntentIOException} instead of that response. The record stays {@code PENDING} with {@link
 * #reason()}; re-issue the same tagged call or resume it later, never send it under a new key. The
 * intent API reports the same as {@link IntentOutcome.Pending}.
 */
public class IntentPendingException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient IntentId id;
  private final PendingReason reason;

  /** Creates the exception for intent {@code id}, pending for {@code reason} ({@code detail} in safe words). */
  public IntentPendingException(IntentId id, PendingReason reason, String detail) {
    super("the outcome of intent " + Objects.requireNonNull(id, "id") + " is not known yet ("
        + Objects.requireNonNull(reason, "reason") + "): " + detail);
    this.id = id;
    this.reason = reason;
  }

  /** The intent. */
  public IntentId id() {
    return id;
  }

  /** Why the outcome is unknown. */
  public PendingReason reason() {
    return reason;
  }
}
