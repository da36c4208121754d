package dev.oncely.server.inbox;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The wait before a failed message runs again: doubling from {@code first} after each failure up
 * to {@code max}, with half of it random (so messages that failed together, in an outage, do not
 * all come back in the same instant).
 */
record Backoff(Duration first, Duration max) {
  Duration after(int failures) {
    long firstNanos = first.toNanos();
    long maxNanos = max.toNanos();
    int doublings = Math.min(Math.max(failures - 1, 0), 62);
    long full = firstNanos > (maxNanos >> doublings) ? maxNanos : Math.min(maxNanos,
        firstNanos << doublings);
    long half = full / 2;
    return Duration.ofNanos(half + (half == 0 ? 0 : ThreadLocalRandom.current().nextLong(half + 1)));
  }
}
