package dev.oncely.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.testing.ManualClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class EngineClockTest {
  private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");

  /** A clock without a monotonic reading of its own, set by the test. */
  private static final class SetClock extends Clock {
    private Instant now = T0;

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

  @Test
  void the_system_clock_in_any_zone_measures_with_nano_time() {
    EngineClock clock = EngineClock.of(Clock.system(ZoneId.of("Asia/Tokyo")));

    long before = System.nanoTime();
    long reading = clock.nanos();

    assertThat(reading - before).isBetween(0L, Duration.ofSeconds(5).toNanos());
  }

  @Test
  void a_ticker_clock_gives_its_own_monotonic_reading_whatever_its_wall_does() {
    ManualClock manual = new ManualClock(T0);
    EngineClock clock = EngineClock.of(manual);
    long start = clock.nanos();

    manual.stepWall(Duration.ofHours(-6));
    manual.advance(Duration.ofSeconds(3));

    assertThat(clock.nanos() - start).isEqualTo(Duration.ofSeconds(3).toNanos());
    assertThat(clock.wall()).isEqualTo(T0.minus(Duration.ofHours(6)).plusSeconds(3));
  }

  @Test
  void a_simulated_clock_measures_with_its_wall_readings_held_still_while_they_go_back() {
    SetClock simulated = new SetClock();
    EngineClock clock = EngineClock.of(simulated);
    long start = clock.nanos();

    simulated.now = T0.plusSeconds(10);
    long later = clock.nanos();
    simulated.now = T0.minus(Duration.ofHours(6));

    assertThat(later - start).isEqualTo(Duration.ofSeconds(10).toNanos());
    assertThat(clock.nanos()).isEqualTo(later);
  }
}
