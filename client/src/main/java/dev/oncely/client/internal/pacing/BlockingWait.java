package dev.oncely.client.internal.pacing;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The one way a thread blocks for the engine: until a future completes (a drive's end, a wait's
 * wake-up), or a stop nobody announces is seen. Only the caller's own stop is looked at on a
 * period: OkHttp sets a canceled call's flag and tells no one, so a blocked call looks at it every
 * {@value #STOP_CHECK_MILLIS} ms; everything else (the end, the wake-up, an owner's close, which
 * completes the wake-up) wakes the thread at once.
 */
public final class BlockingWait {
  /** How often a blocked caller looks at a stop nobody announces (OkHttp's cancel flag). */
  public static final long STOP_CHECK_MILLIS = 100;

  /** How a blocking wait ended. */
  public enum Result {
    /** The future completed (normally or not). */
    DONE,
    /** The caller's stop was seen first. */
    STOPPED,
    /** The thread was interrupted (its interrupt flag is set again). */
    INTERRUPTED
  }

  private BlockingWait() {}

  /**
   * Blocks until {@code future} completes, {@code stop} returns non-null, or the thread is
   * interrupted; {@code stop} may be null (nothing to look at).
   */
  public static Result await(CompletableFuture<?> future, Supplier<String> stop) {
    try {
      while (true) {
        try {
          if (stop == null) {
            future.get();
          } else {
            future.get(STOP_CHECK_MILLIS, TimeUnit.MILLISECONDS);
          }
          return Result.DONE;
        } catch (ExecutionException completedExceptionally) {
          return Result.DONE;
        } catch (TimeoutException notYet) {
          if (stop.get() != null) {
            return Result.STOPPED;
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Result.INTERRUPTED;
    }
  }
}
