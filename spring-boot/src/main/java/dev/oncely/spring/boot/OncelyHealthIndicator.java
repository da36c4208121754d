package dev.oncely.spring.boot;

import dev.oncely.client.DueWorkScheduler;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code oncely} health: UP while the store answers, its backlog is within bounds and the
 * due-work scheduler (when there is one) runs; DOWN when the store fails, when more than {@code
 * maxNeedsReconciliation} intents need reconciliation (a person has to look), when an unfinished
 * intent is older than {@code maxPendingAge} (the server or the resume is stuck), or when the
 * due-work scheduler stopped on a failure it could not survive ({@link
 * DueWorkScheduler.State#FAILED}: no intent is driven at its due time any more). Details: the
 * unfinished count, the reconciliation backlog, the oldest unfinished intent's age, and {@code
 * dueWork} (the scheduler's state) with {@code dueWorkFailure} (the error that stopped it) or
 * {@code dueWorkLastTickFailure} (what its last tick threw, if it failed; it goes on); never a key,
 * scope or business id.
 *
 * <p>Each check is one {@link IntentStore#listUnfinished()}, which reads every unfinished record
 * (durable engines find them through their index of unfinished records). Use Actuator's health
 * cache for frequent probes, above all with a large backlog.
 */
public final class OncelyHealthIndicator extends AbstractHealthIndicator {
  private final IntentStore store;
  private final DueWorkScheduler dueWork;
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
    this(store, null, maxNeedsReconciliation, maxPendingAge, clock);
  }

  /**
   * Reports on {@code store} and on the due-work scheduler {@code dueWork}.
   *
   * @param store the store checked
   * @param dueWork the scheduler driving the store's due intents, or null when there is none
   * @param maxNeedsReconciliation most intents needing reconciliation while UP
   * @param maxPendingAge longest an intent may stay unfinished while UP
   * @param clock the clock ages are measured with
   * @throws NullPointerException if {@code store}, {@code maxPendingAge} or {@code clock} is null
   * @throws IllegalArgumentException if {@code maxNeedsReconciliation} is negative or {@code
   *     maxPendingAge} is not positive
   */
  public OncelyHealthIndicator(IntentStore store, @Nullable DueWorkScheduler dueWork,
      int maxNeedsReconciliation, Duration maxPendingAge, Clock clock) {
    super("the Oncely intent store failed");
    this.store = Objects.requireNonNull(store, "store");
    this.dueWork = dueWork;
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
    boolean dueWorkFailed = false;
    if (dueWork != null) {
      // First, so the scheduler's state is reported even when the store's listing fails.
      DueWorkScheduler.State state = dueWork.state();
      builder.withDetail("dueWork", state.name());
      dueWork.failure().ifPresent(e -> builder.withDetail("dueWorkFailure", describe(e)));
      dueWork.lastTickFailure().ifPresent(e ->
          builder.withDetail("dueWorkLastTickFailure", describe(e)));
      dueWorkFailed = state == DueWorkScheduler.State.FAILED;
      if (dueWorkFailed) {
        builder.down();
      }
    }
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
    boolean down = dueWorkFailed || needsReconciliation > maxNeedsReconciliation || tooOld > 0;
    (down ? builder.down() : builder.up())
        .withDetail("unfinished", unfinished.size())
        .withDetail("needsReconciliation", needsReconciliation)
        .withDetail("maxNeedsReconciliation", maxNeedsReconciliation)
        .withDetail("pendingOlderThanMax", tooOld)
        .withDetail("oldestPendingAge", oldest.toString())
        .withDetail("maxPendingAge", maxPendingAge.toString());
  }

  /** An exception as a health detail: its class and message (which name records by safe key). */
  private static String describe(Throwable e) {
    return e.getMessage() == null ? e.getClass().getName()
        : e.getClass().getName() + ": " + e.getMessage();
  }
}
