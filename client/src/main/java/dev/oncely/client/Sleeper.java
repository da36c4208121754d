package dev.oncely.client;

import java.time.Duration;

/**
 * Waits between attempts. The seam that lets tests run retry schedules without real waiting: a test
 * sleeper records the asked durations and advances a test clock instead.
 */
@FunctionalInterface
public interface Sleeper {
  /** Waits with {@link Thread#sleep(long, int)}. */
  Sleeper SYSTEM = duration -> {
    if (!duration.isNegative() && !duration.isZero()) {
      Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);
    }
  };

  /**
   * Waits for {@code duration} (zero or positive).
   *
   * @throws InterruptedException if the waiting thread is interrupted (the client is closing)
   */
  void sleep(Duration duration) throws InterruptedException;
}
