package dev.oncely.spring.web;

import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentOutcome;
import java.util.Objects;
import org.springframework.web.client.ResourceAccessException;

/**
 * A call sent through {@link OncelyClientHttpRequestFactory} ended without a known outcome: no
 * attempt got an answer before the retry policy's attempts or deadline ran out (the request may
 * have been processed), the last answer could be misread as final, or the intent needs
 * reconciliation. {@link #outcome()} is what the intent API would report for it: {@link
 * IntentOutcome.Pending} (with its {@code PendingReason}, its detail and when to check again) or
 * {@link IntentOutcome.NeedsReconciliation}.
 *
 * <p>It is a {@link ResourceAccessException}, which {@code RestClient} and {@code RestTemplate}
 * throw for I/O errors, so code that catches that keeps working; catch this subclass first to tell
 * an unknown outcome from a plain I/O error without walking causes. {@link #getCause()} is the
 * interceptor's {@link IntentIOException}, whose own cause holds the last I/O failure.
 *
 * <p>An unknown outcome is never a failure: call again with the same intent (same business id,
 * same key: a finished intent is answered from the store), or let the due-work scheduler or a
 * resume drive it; never send it under a new business id. Refusals before anything was sent (a
 * changed body under a used business id, a body over the limit, an invalid key) and store failures
 * stay plain {@code ResourceAccessException}s caused by an {@link IntentIOException}.
 */
public class UnknownOutcomeException extends ResourceAccessException {
  private static final long serialVersionUID = 1L;

  private final transient IntentOutcome outcome;

  /**
   * Creates the exception for a call to {@code target} (method and URL without its query) that
   * ended with {@code cause}.
   *
   * @param target the call, in safe words, for the message
   * @param cause the interceptor's exception; its {@link IntentIOException#outcome()} must be
   *     present
   * @throws NullPointerException if {@code target} or {@code cause} is null
   * @throws IllegalArgumentException if {@code cause} carries no outcome
   */
  public UnknownOutcomeException(String target, IntentIOException cause) {
    super("the outcome of " + Objects.requireNonNull(target, "target") + " is not known: "
        + Objects.requireNonNull(cause, "cause").getMessage(), cause);
    this.outcome = cause.outcome().orElseThrow(() -> new IllegalArgumentException(
        "the IntentIOException carries no outcome: " + cause.getMessage()));
  }

  /**
   * The intent's outcome as the intent API reports it: {@link IntentOutcome.Pending} or {@link
   * IntentOutcome.NeedsReconciliation}.
   *
   * @return the outcome (like any transient field, not kept by Java serialization)
   */
  public IntentOutcome outcome() {
    return outcome;
  }

  /** The interceptor's exception. */
  @Override
  public synchronized IntentIOException getCause() {
    return (IntentIOException) super.getCause();
  }
}
