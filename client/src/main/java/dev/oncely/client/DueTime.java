package dev.oncely.client;

import java.time.Duration;
import java.time.Instant;

/**
 * When an unfinished intent should be driven again, derived from its record alone so every store
 * (and a SQL column computed on write) agrees with {@link IntentStore#claimDue}:
 * <ul>
 *   <li>finished records and {@code NEEDS_RECONCILIATION} (resending cannot help): never;
 *   <li>a stored {@link IntentRecord#nextAttemptAt() next attempt time}: that time. For a {@code
 *       PENDING} record it is the wait its last drive owed (backoff, {@code Retry-After}); for an
 *       {@code IN_FLIGHT} one, the time its drive holds it until (the running attempt's timeout,
 *       or the end of the wait it is in), so a live drive never reads as due;
 *   <li>{@code NEW}, or {@code IN_FLIGHT} without one (written before claims carried it): at once
 *       (its last drive may have died);
 *   <li>{@code PENDING} without one: {@link #PENDING_RETRY_FLOOR} after its last update, so an intent
 *       whose drive stopped without a wait (offline, deadline) is not driven in a tight loop.
 * </ul>
 */
public final class DueTime {
  /** How long a {@code PENDING} record without a next attempt time waits before it is due. */
  public static final Duration PENDING_RETRY_FLOOR = Duration.ofSeconds(5);

  private DueTime() {}

  /**
   * Returns when {@code record} is due, or null when it is never driven by a scheduler.
   *
   * @throws NullPointerException if {@code record} is null
   */
  public static Instant of(IntentRecord record) {
    IntentState state = record.state();
    if (state.isTerminal() || state == IntentState.NEEDS_RECONCILIATION) {
      return null;
    }
    if (record.nextAttemptAt() != null) {
      return record.nextAttemptAt();
    }
    return state == IntentState.PENDING
        ? record.updatedAt().plus(PENDING_RETRY_FLOOR) : record.updatedAt();
  }
}
