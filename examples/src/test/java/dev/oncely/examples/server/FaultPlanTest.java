package dev.oncely.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FaultPlanTest {
  @Test
  void spec_sets_every_named_fault() {
    FaultPlan plan = FaultPlan.parse(
        "drop=0.2, stall=0.05,refuse=0.05,latency=5ms,burst503=0.02,burstlen=4,stallfor=2s,seed=42");

    assertThat(plan.drop()).isEqualTo(0.2);
    assertThat(plan.stall()).isEqualTo(0.05);
    assertThat(plan.refuse()).isEqualTo(0.05);
    assertThat(plan.latency()).isEqualTo(Duration.ofMillis(5));
    assertThat(plan.burst503()).isEqualTo(0.02);
    assertThat(plan.burstLength()).isEqualTo(4);
    assertThat(plan.stallFor()).isEqualTo(Duration.ofSeconds(2));
    assertThat(plan.seed()).isEqualTo(42);
  }

  @Test
  void empty_or_none_spec_is_no_faults() {
    assertThat(FaultPlan.parse("")).isEqualTo(FaultPlan.none());
    assertThat(FaultPlan.parse(" none ")).isEqualTo(FaultPlan.none());
  }

  @Test
  void plan_survives_a_round_trip_through_its_spec() {
    FaultPlan plan = FaultPlan.parse("drop=0.25,latency=3ms,seed=-9");
    assertThat(FaultPlan.parse(plan.toSpec())).isEqualTo(plan);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "drop=0.1,bogus=1      | bogus=1      | unknown fault 'bogus'",
      "drop=1.5              | drop=1.5     | [0, 1]",
      "stall=x               | stall=x      | not a probability",
      "drop                  | drop         | expected name=value",
      "drop=0.1,drop=0.2     | drop=0.2     | more than once",
      "latency=5 minutes     | latency=5 minutes | not a duration",
      "latency=11s,stallfor=1h | stallfor=1h | not a duration",
      "stallfor=601s         | stallfor=601s | between 0 and 10 minutes",
      "burstlen=0            | burstlen=0   | [1, 1000]",
      "seed=abc              | seed=abc     | not a long",
      "drop=0.1,,stall=0.1   | ''           | expected name=value",
  })
  void bad_spec_is_refused_naming_the_bad_item(String spec, String item, String problem) {
    assertThatThrownBy(() -> FaultPlan.parse(spec))
        .isInstanceOfSatisfying(FaultSpecException.class, e -> {
          assertThat(e.item()).isEqualTo(item);
          assertThat(e.getMessage()).contains("'" + item + "'").contains(problem);
        });
  }
}
