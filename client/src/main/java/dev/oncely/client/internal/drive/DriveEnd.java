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

  /** The record holds an outcome; {@code answer} and {@code live} are this drive's last, or null. */
  public static DriveEnd settled(IntentRecord record, Answer answer, Response live) {
    return new DriveEnd(Kind.SETTLED, record, answer, live, null, null, null, null);
  }

  /** The record holds an outcome that no attempt of this drive produced (a finished record). */
  public static DriveEnd settled(IntentRecord record) {
    return settled(record, null, null);
  }

  /**
   * The record was parked {@code PENDING} for {@code reason}; {@code answer} and {@code live} are
   * the last answer held back, or null.
   */
  public static DriveEnd parked(IntentRecord record, Answer answer, Response live,
      PendingReason reason, String detail, Instant due, Throwable cause) {
    return new DriveEnd(Kind.PARKED, record, answer, live, reason, detail, due, cause);
  }

  /**
   * The drive stopped before it read or sent anything: its owner closed, or the caller stopped
   * waiting for another drive of the intent ({@code cause}: how, or null).
   */
  public static DriveEnd notStarted(String detail, Throwable cause) {
    return parked(null, null, null, PendingReason.INTERRUPTED, detail, null, cause);
  }

  /** Whether the drive stopped before it read or sent anything ({@link #notStarted}). */
  public boolean isNotStarted() {
    return kind == Kind.PARKED && record == null && answer == null
        && reason == PendingReason.INTERRUPTED;
  }

  /** The store failed; {@code record} is the last durable state known, or null. */
  public static DriveEnd storeFailed(IntentRecord record, String detail, Throwable cause) {
    return new DriveEnd(Kind.STORE_FAILED, record, null, null, PendingReason.STORE_FAILED, detail,
        null, cause);
  }

  /** Another drive changed the record; {@code now} is what the store holds, or null. */
  public static DriveEnd lost(IntentRecord now, String detail) {
    return new DriveEnd(Kind.LOST, now, null, null, PendingReason.DRIVEN_ELSEWHERE, detail, null,
        null);
  }

  /** The record needs (or stays in) reconciliation, for {@code detail}. */
  public static DriveEnd reconcile(IntentRecord record, String detail, Throwable cause) {
    return new DriveEnd(Kind.RECONCILE, record, null, null, null, detail, null, cause);
  }

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
