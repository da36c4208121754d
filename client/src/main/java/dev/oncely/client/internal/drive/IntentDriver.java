package dev.oncely.client.internal.drive;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.PendingReason;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The rendering of a drive no app call waits on (the intent API's, and the interceptor's resumes):
 * turns how a {@link DriveLoop} drive ended into an {@link IntentOutcome}, which is already stored,
 * and reads the record a resumed drive starts from.
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

  /**
   * A future of the caller's own that follows how {@code ended} ends, as an outcome: cancelling it
   * never cancels the shared drive. An error that ended the drive completes it exceptionally.
   */
  public static CompletableFuture<IntentOutcome> outcome(IntentId id,
      CompletableFuture<DriveEnd> ended) {
    CompletableFuture<IntentOutcome> own = new CompletableFuture<>();
    ended.whenComplete((end, e) -> {
      if (e != null) {
        own.completeExceptionally(e instanceof CompletionException && e.getCause() != null
            ? e.getCause() : e);
      } else {
        own.complete(outcomeOf(end.record() != null ? end.record().id() : id, end));
      }
    });
    return own;
  }

}
