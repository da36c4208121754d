package dev.oncely.spring.boot;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code oncely} health: UP while the store answers and its backlog is within bounds; DOWN when
 * the store fails, when more than {@code maxNeedsReconciliation} intents need reconciliation (a
 * person has to look), or when an unfinished intent is older than {@code maxPendingAge} (the
 * server or the resume is stuck). Details: the unfinished count, the reconciliation backlog and the
 * oldest unfinished intent's age; never a key, scope or business id.
 *
 * <p>Each check is one {@link IntentStore#listUnfinished()}; durable engines answer it from their
 * index of unfinished records. Use Actuator's health cache for frequent probes.
 */
public final class OncelyHealthIndicator extends AbstractHealthIndicator {
  private final IntentStore store;
  private final int maxNeedsReconciliation;
  private final Duration maxPendingAge;
  private final Clock clock;

  /**
   * Reports on {@code store}.
   *
   * @param store the store checked
   * @param maxNeedsReconciliation most intents needing reconciliation while UP
   * @param maxPendingAge longest an intent may stay unfinished while UP
   * @param clock the clock ages are measured with
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code maxNeedsReconciliation} is negative or {@code
   *     maxPendingAge} is not positive
   */
  public OncelyHealthIndicator(IntentStore store, int maxNeedsReconciliation,
      Duration maxPendingAge, Clock clock) {
    super("the Oncely intent store failed");
    this.store = Objects.requireNonNull(store, "store");
    this.maxPendingAge = Objects.requireNonNull(maxPendingAge, "maxPendingAge");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (maxNeedsReconciliation < 0) {
      throw new IllegalArgumentException("oncely.health.max-needs-reconciliation must be >= 0,"
          + " was " + maxNeedsReconciliation);
    }
    if (maxPendingAge.isNegative() || maxPendingAge.isZero()) {
      throw new IllegalArgumentException("oncely.health.max-pending-age must be positive, was "
          + maxPendingAge);
    }
    this.maxNeedsReconciliation = maxNeedsReconciliation;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    List<IntentRecord> unfinished = store.listUnfinished();
    Instant now = clock.instant();
    int needsReconciliation = 0;
    int tooOld = 0;
    Duration oldest = Duration.ZERO;
    for (IntentRecord record : unfinished) {
      if (record.state() == IntentState.NEEDS_RECONCILIATION) {
        needsReconciliation++;
        continue;
      }
      Duration age = Duration.between(record.createdAt(), now);
      if (age.compareTo(oldest) > 0) {
        oldest = age;
      }
      if (age.compareTo(maxPendingAge) > 0) {
        tooOld++;
      }
    }
    boolean down = needsReconciliation > maxNeedsReconciliation || tooOld > 0;
    (down ? builder.down() : builder.up())
        .withDetail("unfinished", unfinished.size())
        .withDetail("needsReconciliation", needsReconciliation)
        .withDetail("maxNeedsReconciliation", maxNeedsReconciliation)
        .withDetail("pendingOlderThanMax", tooOld)
        .withDetail("oldestPendingAge", oldest.toString())
        .withDetail("maxPendingAge", maxPendingAge.toString());
  }
}
