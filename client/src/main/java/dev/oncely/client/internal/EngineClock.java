package dev.oncely.client.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The engine's two readings of time, the one place either is taken from. {@link #wall()} is the
 * clock the app set: it stamps what is stored (created, updated, next attempt and expiry times),
 * dates a {@code Retry-After}, and is what a record is judged by across a restart, where it is all
 * there is. {@link #nanos()} is monotonic: drive deadlines, attempt timeouts and the length of waits
 * inside one process run on it, so a step of the wall clock does not move them.
 *
 * <p>Where the monotonic reading comes from: a clock that is a {@link Ticker} gives its own (a
 * test's controllable clock); the system clock (the default) has {@link System#nanoTime()}; any
 * other clock is taken as simulated time, whose readings are the whole of time, so its wall
 * readings serve, held still while they go back. Thread-safe.
 */
public final class EngineClock {
  /** A clock that also gives a monotonic reading, in nanoseconds from an arbitrary origin. */
  public interface Ticker {
    /** The monotonic reading: never smaller than an earlier one. */
    long nanos();
  }

  private static final Class<?> SYSTEM_CLOCK = Clock.systemUTC().getClass();

  private final Clock wall;
  private final LongSupplier monotonic;

  private EngineClock(Clock wall, LongSupplier monotonic) {
    this.wall = wall;
    this.monotonic = monotonic;
  }

  /** The engine clock of {@code clock}, with the monotonic reading described on the class. */
  public static EngineClock of(Clock clock) {
    if (clock instanceof Ticker ticker) {
      return new EngineClock(clock, ticker::nanos);
    }
    if (clock.getClass() == SYSTEM_CLOCK) {
      return new EngineClock(clock, System::nanoTime);
    }
    AtomicLong latest = new AtomicLong(Long.MIN_VALUE);
    return new EngineClock(clock, () -> latest.accumulateAndGet(epochNanos(clock.instant()),
        Math::max));
  }

  /** The wall time. */
  public Instant wall() {
    return wall.instant();
  }

  /** The monotonic reading in nanoseconds; only differences of two readings mean anything. */
  public long nanos() {
    return monotonic.getAsLong();
  }

  private static long epochNanos(Instant at) {
    try {
      return Math.addExact(Math.multiplyExact(at.getEpochSecond(), 1_000_000_000L), at.getNano());
    } catch (ArithmeticException beyond) {
      return at.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }
}
