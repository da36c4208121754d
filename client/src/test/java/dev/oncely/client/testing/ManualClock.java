package dev.oncely.client.testing;

import dev.oncely.client.internal.EngineClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that moves only when a test (or a {@link RecordingSleeper}) advances it. Its monotonic
 * reading, which the engine measures deadlines and waits with, moves with every {@link #advance};
 * {@link #stepWall} moves the wall reading alone, as an operator or NTP setting the clock does.
 * Thread-safe.
 */
public final class ManualClock extends Clock implements EngineClock.Ticker {
  private volatile Instant now;
  private volatile long nanos;

  /** Starts at {@code start}. */
  public ManualClock(Instant start) {
    this.now = start;
  }

  /** Moves the clock forward by {@code d}: time passes. */
  public synchronized void advance(Duration d) {
    now = now.plus(d);
    nanos += d.toNanos();
  }

  /** Sets the wall reading {@code d} forward (negative: back) without time passing. */
  public synchronized void stepWall(Duration d) {
    now = now.plus(d);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public long nanos() {
    return nanos;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
