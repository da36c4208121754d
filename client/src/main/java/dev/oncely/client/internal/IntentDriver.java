package dev.oncely.client.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.PendingReason;

/**
 * The intent API's front end of the {@link DriveLoop}: drives a record through the client's own
 * {@link AttemptBridge} and turns how the drive ended into an {@link IntentOutcome}, which is
 * already stored.
 */
public final class IntentDriver {
  private IntentDriver() {}

  /**
   * Drives {@code record} until it has an outcome or the drive gives up; never throws.
   *
   * @param claimed true when the caller has just created {@code record} in state {@code
   *     IN_FLIGHT} and nothing was sent for it yet: that create was the claim
   */
  public static IntentOutcome drive(EngineConfig config, IntentRecord record, boolean claimed) {
    DriveEnd end = DriveLoop.drive(config.drive(), new AttemptBridge(config), record, claimed,
        false);
    return outcomeOf(record.id(), end);
  }

  /** What a drive's end means to a caller of the intent API. */
  static IntentOutcome outcomeOf(IntentId id, DriveEnd end) {
    IntentRecord record = end.record();
    switch (end.kind()) {
      case SETTLED:
        return IntentOutcome.of(record);
      case RECONCILE:
        return new IntentOutcome.NeedsReconciliation(id, end.detail() != null ? end.detail()
            : record.reason(), record.lastResponse());
      case LOST:
        if (record != null && (record.state().isTerminal()
            || record.state() == IntentState.NEEDS_RECONCILIATION)) {
          return IntentOutcome.of(record);
        }
        return new IntentOutcome.Pending(id, PendingReason.DRIVEN_ELSEWHERE, end.detail(), null,
            record == null ? null : record.lastResponse(), null);
      default:
        return new IntentOutcome.Pending(id, end.reason(), end.detail(), end.due(),
            record == null ? null : record.lastResponse(), end.cause());
    }
  }
}
