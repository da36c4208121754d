package dev.oncely.client.internal.pacing;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one timer of the process that resumes waiting drives: a single daemon thread that only
 * completes wake-ups (the drive's next step runs on its owner's executor or its caller's thread),
 * so a thousand waiting intents cost a thousand timer entries, not a thousand threads.
 */
public final class DriveTimer {
  private static final ScheduledThreadPoolExecutor TIMER = create();

  private DriveTimer() {}

  private static ScheduledThreadPoolExecutor create() {
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "oncely-timer");
      t.setDaemon(true);
      return t;
    });
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }

  /** Runs {@code wake} after {@code delay}; it must be quick and never block. */
  public static ScheduledFuture<?> schedule(Duration delay, Runnable wake) {
    return TIMER.schedule(wake, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
  }
}
