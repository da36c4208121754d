package dev.oncely.client;

import java.io.IOException;

/**
 * A refusal or failure of the {@link IdempotencyInterceptor}, as an {@link IOException}: OkHttp
 * hands an {@code IOException} to the callback of an asynchronous call, but rethrows any other
 * exception on its dispatcher thread, which crashes an Android app. {@link #getCause()} is the
 * typed reason: {@link PayloadMismatchException} (a changed body under a used key, refused before
 * any I/O), {@link BodyTooLargeException} (nothing was sent), {@link NeedsReconciliationException} and
 * {@link IntentPendingException} (the outcome is not known; the record says so), {@link
 * InvalidIntentException} (a key the app set that no intent can carry; nothing was stored or
 * sent), or a {@code StoreException} (the store failed; what was durable before stays).
 */
public class IntentIOException extends IOException {
  private static final long serialVersionUID = 1L;

  /** Wraps {@code cause}, keeping its message. */
  public IntentIOException(RuntimeException cause) {
    super(cause.getMessage(), cause);
  }

  /** The typed reason. */
  @Override
  public synchronized RuntimeException getCause() {
    return (RuntimeException) super.getCause();
  }
}
