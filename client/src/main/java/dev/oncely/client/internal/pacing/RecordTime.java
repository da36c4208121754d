package dev.oncely.client.internal.pacing;

import dev.oncely.client.internal.EngineClock;
import dev.oncely.client.IntentRecord;
import java.time.Duration;
import java.time.Instant;

/**
 * The wall time one drive stamps its record with and judges the record's age by: the wall clock,
 * but never earlier than the latest time the record already shows (its creation or its last
 * update), moved on by the monotonic clock since the drive read it.
 *
 * <p>Why: the server forgets a key after its retention by its own clock, and resending past that
 * is a second effect. A wall clock stepped back (across a restart, or during a drive) would make a
 * record look younger than it is; a stored time later than now is proof of such a step, so the
 * record's age is judged as at least the span its own times show, plus what this process measured
 * since. Writes never move the update time back, so that proof survives the next restart. A wall
 * clock stepped forward makes records look older, which is the safe side: a maybe-delivered intent
 * past the retention goes to reconciliation instead of being resent. Not thread-safe.
 */
public final class RecordTime {
  private final EngineClock clock;
  private final Instant shown;
  private final long readAt;

  /** The time of a drive that has just read {@code record}. */
  public RecordTime(EngineClock clock, IntentRecord record) {
    this.clock = clock;
    this.shown = later(record.createdAt(), record.updatedAt());
    this.readAt = clock.nanos();
  }

  /** Now, by the wall clock, but never before what the record showed plus the time since. */
  public Instant now() {
    return later(clock.wall(), shown.plusNanos(clock.nanos() - readAt));
  }

  /**
   * Whether the server is still expected to remember the key of {@code record}: its expiry and its
   * creation plus {@code keyRetention} both lie after {@link #now()}.
   */
  public boolean withinRetention(IntentRecord record, Duration keyRetention) {
    Instant now = now();
    return now.isBefore(record.expiresAt())
        && now.isBefore(record.createdAt().plus(keyRetention));
  }

  private static Instant later(Instant a, Instant b) {
    return b.isAfter(a) ? b : a;
  }
}
