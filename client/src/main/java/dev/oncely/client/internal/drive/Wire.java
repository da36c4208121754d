package dev.oncely.client.internal.drive;

import dev.oncely.client.IntentRecord;
import okhttp3.Response;

/**
 * The one thing the two entry points do differently: how an attempt reaches the wire. The intent
 * API sends through its own {@code Call.Factory}; the interceptor through the app's {@code
 * chain.proceed}. Everything else about a drive lives once, in {@link DriveLoop}.
 */
public interface Wire {
  /**
   * What one attempt brought back: the bounded {@code answer}, and for the interceptor the {@code
   * live} response the app may be handed (null for the intent API, which closes it at once).
   */
  record Sent(Answer answer, Response live) {
    /** Closes the live response, if any. */
    public void discard() {
      if (live != null) {
        live.close();
      }
    }
  }

  /**
   * Null while attempts may go on; else why they must stop now (a canceled call, a closed client
   * or interceptor). Waits are not the wire's: {@link DriveRun} runs them.
   */
  String stopped();

  /**
   * Whether {@link #stopped()} can turn non-null without anyone announcing it (OkHttp's cancel
   * flag, which the app sets and tells no one): a thread blocked in this wire's waits then looks
   * at it on a period. A stop of the drive's owner is always announced: it ends the wait at once.
   */
  default boolean stopsUnannounced() {
    return false;
  }

  /**
   * Sends one attempt of {@code exchange} for {@code record} within {@code timeoutMillis}. Never
   * throws: a failure of any kind, the HTTP client's or the app's, is the answer's failure, marked
   * {@linkplain Answer#provablyUnsent() unsent} only when nothing can have been written. An answer
   * that refuses the credentials ({@code 401}, {@code 407}) of a target that gets the app's
   * credentials asks the app's credential source for fresh ones at once, says what that gave
   * ({@link Answer#renewal()}), and the next attempt carries them.
   */
  Sent send(IntentRecord record, Exchange exchange, long timeoutMillis);
}
