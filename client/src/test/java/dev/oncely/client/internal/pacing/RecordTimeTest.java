package dev.oncely.client.internal.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentId;
import dev.oncely.client.internal.EngineClock;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RecordTimeTest {
  private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");

  @Test
  void record_time_is_never_before_what_the_record_shows_plus_the_time_measured_since() {
    ManualClock manual = new ManualClock(T0);
    IntentRecord record = IntentRecord.builder().id(IntentId.of("s", "op", "k"))
        .method("POST").url("https://pay.example/p").fingerprint("ab".repeat(32))
        .state(IntentState.PENDING)
        .createdAt(T0).updatedAt(T0.plus(Duration.ofMinutes(50)))
        .expiresAt(T0.plus(Duration.ofHours(1))).build();
    manual.stepWall(Duration.ofMinutes(-10));
    RecordTime time = new RecordTime(EngineClock.of(manual), record);

    assertThat(time.now()).isEqualTo(T0.plus(Duration.ofMinutes(50)));
    assertThat(time.withinRetention(record, Duration.ofHours(1))).isTrue();

    manual.advance(Duration.ofMinutes(11));
    manual.stepWall(Duration.ofHours(-6));

    assertThat(time.now()).isEqualTo(T0.plus(Duration.ofMinutes(61)));
    assertThat(time.withinRetention(record, Duration.ofHours(1)))
        .as("the age measured in this process counts, the step back does not").isFalse();

    manual.stepWall(Duration.ofHours(8));

    assertThat(time.now()).as("a step forward is taken as it is: the record looks older")
        .isEqualTo(manual.instant());
  }
}
