package dev.oncely.server.internal;

import dev.oncely.client.IntentStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Purges a store's expired finished records in steps of expiry time, so one write never holds the
 * store for more than what expired within one step, however many records it holds. The first call
 * starts one step before {@code now} (everything older goes in that first step); later calls go
 * on from where the last one stopped. Thread-safe.
 */
public final class SteppedPurge {
  private final IntentStore store;
  private @Nullable Instant purgedUpTo;

  /** A purge of {@code store}'s expired records. */
  public SteppedPurge(IntentStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /**
   * Removes the finished records whose retention ended by {@code now}, one step of expiry time at
   * a time.
   *
   * @return how many were removed
   * @throws IllegalArgumentException if {@code step} is not positive
   */
  public synchronized int purge(Instant now, Duration step) {
    Objects.requireNonNull(now, "now");
    if (step.isNegative() || step.isZero()) {
      throw new IllegalArgumentException("step must be positive, was " + step);
    }
    int removed = 0;
    Instant from = purgedUpTo == null || purgedUpTo.isAfter(now) ? now.minus(step) : purgedUpTo;
    for (Instant cut = from; ; cut = cut.plus(step)) {
      Instant upTo = cut.isAfter(now) ? now : cut;
      removed += store.purgeExpired(upTo);
      purgedUpTo = upTo;
      if (!upTo.isBefore(now)) {
        return removed;
      }
    }
  }
}
