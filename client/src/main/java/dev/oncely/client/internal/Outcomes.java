package dev.oncely.client.internal;

import dev.oncely.client.IntentOutcome;
import dev.oncely.client.PendingReason;
import dev.oncely.client.spi.IntentRecord;

/** The outcome a stored record stands for, and the reason text format of pending records. */
public final class Outcomes {
  private Outcomes() {}

  /** The reason text stored on a pending record: the enum name, a colon, the detail. */
  public static String pendingReasonText(PendingReason reason, String detail) {
    return reason.name() + ": " + detail;
  }

  /** What {@code record} means to a caller, with no I/O. */
  public static IntentOutcome of(IntentRecord record) {
    switch (record.state()) {
      case COMPLETED:
        return new IntentOutcome.Completed(record.id(), record.lastResponse(), record.replayed());
      case REJECTED:
        return new IntentOutcome.Rejected(record.id(), record.lastResponse());
      case KEY_CONFLICT:
        return new IntentOutcome.KeyConflict(record.id(), record.lastResponse());
      case NEEDS_RECONCILIATION:
        return new IntentOutcome.NeedsReconciliation(record.id(),
            record.reason() == null ? "needs reconciliation" : record.reason(),
            record.lastResponse());
      default:
        return pending(record);
    }
  }

  private static IntentOutcome pending(IntentRecord record) {
    PendingReason reason = PendingReason.DRIVEN_ELSEWHERE;
    String detail = "the intent is " + record.state() + " and not driven by this client";
    String text = record.reason();
    if (record.state() == dev.oncely.client.IntentState.PENDING && text != null) {
      int colon = text.indexOf(':');
      if (colon > 0) {
        try {
          reason = PendingReason.valueOf(text.substring(0, colon));
          detail = text.substring(colon + 1).trim();
        } catch (IllegalArgumentException e) {
          detail = text;
        }
      } else {
        detail = text;
      }
    }
    return new IntentOutcome.Pending(record.id(), reason, detail, record.nextAttemptAt(),
        record.lastResponse(), null);
  }
}
