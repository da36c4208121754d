package dev.oncely.client;

import java.io.IOException;
import java.util.Optional;

/**
 * A refusal or failure of the {@link IdempotencyInterceptor}, as an {@link IOException}: OkHttp
 * hands an {@code IOException} to the callback of an asynchronous call, but rethrows any other
 * exception on its dispatcher thread, which crashes an Android app. {@link #getCause()} is the
 * typed reason: {@link PayloadMismatchException} (a changed body under a used key, refused before
 * any I/O), {@link BodyTooLargeException} (nothing was sent), {@link NeedsReconciliationException} and
 * {@link IntentPendingException} (the outcome is not known: no attempt got an answer, or the last
 * answer could be misread as final; the record says so), {@link InvalidIntentException} (a key the
 * app set that no intent can carry, a method that is not an HTTP token; nothing was stored or
 * sent), or a {@code StoreException} (the store failed; what was durable before stays).
 *
 * <p>{@link #outcome()} tells an unknown outcome apart from a refusal without walking causes: it
 * is present exactly when the cause is an {@link IntentPendingException} or a {@link
 * NeedsReconciliationException}. Such an outcome is never a failure: re-issue the same tagged call
 * (same business id, same key) or resume it, never send it under a new key.
 */
public class IntentIOException extends IOException {
  private static final long serialVersionUID = 1L;

  /** Wraps {@code cause}, keeping its message. */
  public IntentIOException(RuntimeException cause) {
    super(cause.getMessage(), cause);
  }

  /**
   * The intent's outcome when it is not known or needs reconciliation: {@link
   * IntentOutcome.Pending} (cause {@link IntentPendingException}) or {@link
   * IntentOutcome.NeedsReconciliation} (cause {@link NeedsReconciliationException}); empty for a
   * refusal before anything was sent (payload mismatch, body too large, invalid key) or a store
   * failure.
   *
   * @return the outcome, or empty
   */
  public Optional<IntentOutcome> outcome() {
    RuntimeException cause = getCause();
    if (cause instanceof IntentPendingException pending && pending.outcome() != null) {
      return Optional.of(pending.outcome());
    }
    if (cause instanceof NeedsReconciliationException reconcile && reconcile.id() != null) {
      return Optional.of(reconcile.outcome());
    }
    return Optional.empty();
  }

  /** The typed reason. */
  @Override
  public synchronized RuntimeException getCause() {
    return (RuntimeException) super.getCause();
  }
}
