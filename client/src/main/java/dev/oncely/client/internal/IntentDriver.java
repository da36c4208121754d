package dev.oncely.client.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.PendingReason;

/**
 * The intent API's rendering of a drive: turns how a {@link DriveLoop} drive ended into an {@link
 * IntentOutcome}, which is already stored.
 */
public final class IntentDriver {
  private IntentDriver() {}

  /** What a drive's end means to a caller of the intent API. */
  public static IntentOutcome outcomeOf(IntentId id, DriveEnd end) {
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
