package dev.oncely.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The examples' one validator of settings: each rule's limits and its one wording. */
class SettingRulesTest {
  @Test
  void an_int_in_range_passes_and_one_outside_names_setting_range_and_value() {
    assertThat(SettingRules.inRange("port", 0, 0, 65535)).isZero();
    assertThat(SettingRules.inRange("port", 65535, 0, 65535)).isEqualTo(65535);
    assertThatThrownBy(() -> SettingRules.inRange("port", 65536, 0, 65535))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("port must be in [0, 65535], was 65536");
  }

  @Test
  void a_share_is_a_decimal_in_zero_to_one_and_nan_is_refused() {
    assertThat(SettingRules.share("slowShare", 1.0)).isEqualTo(1.0);
    assertThatThrownBy(() -> SettingRules.share("slowShare", Double.NaN))
        .hasMessage("slowShare must be in [0, 1], was NaN");
  }

  @Test
  void a_duration_range_is_written_as_the_command_line_writes_durations() {
    assertThat(SettingRules.inRange("lease", Duration.ofSeconds(1), Duration.ofSeconds(1),
        Duration.ofHours(1))).isEqualTo(Duration.ofSeconds(1));
    assertThatThrownBy(() -> SettingRules.inRange("lease", Duration.ofMillis(1500),
        Duration.ofSeconds(2), Duration.ofHours(1)))
        .hasMessage("lease must be in [2s, 3600s], was 1500ms");
    assertThatThrownBy(() -> SettingRules.inRange("lease", null, Duration.ZERO,
        Duration.ofHours(1))).isInstanceOf(NullPointerException.class).hasMessage("lease");
  }

  @Test
  void positive_durations_urls_and_blank_text_are_checked_naming_the_setting() {
    assertThatThrownBy(() -> SettingRules.positive("deadline", Duration.ZERO))
        .hasMessage("deadline must be positive, was 0 ms");
    assertThat(SettingRules.httpUrl("target", "https://example.com/p"))
        .isEqualTo("https://example.com/p");
    assertThatThrownBy(() -> SettingRules.httpUrl("target", "example.com/p"))
        .hasMessage("target must be an absolute http(s) URL, was 'example.com/p'");
    assertThatThrownBy(() -> SettingRules.notBlank("classPath", " "))
        .hasMessage("classPath must not be blank");
  }
}
