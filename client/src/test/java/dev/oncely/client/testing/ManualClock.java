package dev.oncely.client.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that moves only when a test (or a {@link RecordingSleeper}) advances it. Thread-safe. */
public final class ManualClock extends Clock {
  private volatile Instant now;

  /** Starts at {@code start}. */
  public ManualClock(Instant start) {
    this.now = start;
  }

  /** Moves the clock forward by {@code d}. */
  public synchronized void advance(Duration d) {
    now = now.plus(d);
  }

  @Override
  public Instant instant() {
    return now;
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
