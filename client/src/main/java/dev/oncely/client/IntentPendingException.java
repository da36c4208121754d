package dev.oncely.client;

import java.util.Objects;

/**
 * The outcome of an intent sent through the {@link IdempotencyInterceptor} is not known yet: no
 * attempt got an answer before the attempts or the deadline ran out (timeouts, resets: the request
 * may have been processed), or the last answer was one the app could misread as final (a {@code
 * 3xx} or {@code 4xx} after an attempt that may have been delivered). It reaches the app as the
 * cause of an {@link IntentIOException} ({@link IntentIOException#outcome()}), never as a bare
 * socket error. The record stays {@code PENDING} with {@link #reason()}; re-issue the same tagged
 * call or resume it later, never send it under a new key. The intent API reports the same as
 * {@link IntentOutcome.Pending}, which {@link #outcome()} returns; the last I/O failure, if any, is
 * {@link #getCause()}.
 */
public class IntentPendingException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient IntentId id;
  private final PendingReason reason;
  private final transient IntentOutcome.Pending outcome;

  /**
   * Creates the exception for intent {@code id}, pending for {@code reason} ({@code detail} in safe
   * words); {@link #outcome()} then knows no due time, last answer or cause.
   *
   * @throws NullPointerException if {@code id}, {@code reason} or {@code detail} is null
   */
  public IntentPendingException(IntentId id, PendingReason reason, String detail) {
    this(new IntentOutcome.Pending(id, reason, detail, null, null, null));
  }

  /**
   * Creates the exception for {@code outcome}; its {@link IntentOutcome.Pending#cause() cause}
   * (the last I/O failure, if any) becomes this exception's cause.
   *
   * @throws NullPointerException if {@code outcome} is null
   */
  public IntentPendingException(IntentOutcome.Pending outcome) {
    super("the outcome of intent " + Objects.requireNonNull(outcome, "outcome").id()
        + " is not known yet (" + outcome.reason() + "): " + outcome.detail(), outcome.cause());
    this.id = outcome.id();
    this.reason = outcome.reason();
    this.outcome = outcome;
  }

  /**
   * The outcome as the intent API reports it: {@code Pending} with the reason, the detail, when to
   * check again (null if nothing is scheduled) and the last answer (may be null).
   *
   * @return the pending outcome (like {@link #id()}, not kept by Java serialization)
   */
  public IntentOutcome.Pending outcome() {
    return outcome;
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
