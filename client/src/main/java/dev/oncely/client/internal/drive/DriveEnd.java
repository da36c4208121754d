package dev.oncely.client.internal.drive;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.PendingReason;
import java.time.Instant;
import okhttp3.Response;

/**
 * How a drive of the {@link DriveLoop} ended; each front end renders it its own way (an {@code
 * IntentOutcome}, or a {@code Response} or {@code IOException}).
 *
 * @param kind how it ended
 * @param record the record as last stored (for {@link Kind#LOST}: as read back, or null)
 * @param answer the last answer of this drive, or null when nothing was sent
 * @param live the live response of the last answer when the front end may hand it out (the
 *     interceptor); the front end must close it if it does not
 * @param reason why the intent is pending ({@link Kind#PARKED}, {@link Kind#STORE_FAILED}), else null
 * @param detail the pending detail, in safe words, or null
 * @param due when the intent should be driven again, or null
 * @param cause the failure that ended the drive, with the earlier ones suppressed, or null
 */
public record DriveEnd(Kind kind, IntentRecord record, Answer answer, Response live,
    PendingReason reason, String detail, Instant due, Throwable cause) {

  /** How a drive ended. */
  public enum Kind {
    /** The record holds an outcome: terminal, or needs reconciliation after an answer. */
    SETTLED,
    /** The record needs reconciliation; nothing was sent in this drive. */
    RECONCILE,
    /** The record was parked {@code PENDING}: the outcome is unknown. */
    PARKED,
    /** Another drive changed the record; {@link #record()} is what the store holds now. */
    LOST,
    /** The store failed; the last durable state is kept. */
    STORE_FAILED
  }
}
