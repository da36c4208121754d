package dev.oncely.client.internal.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
  private static final Instant NOW = Instant.parse("2015-10-21T07:28:00Z");

  @Test
  void delta_seconds_is_a_delay() {
    assertThat(RetryAfter.parse("120", NOW).delay()).isEqualTo(Duration.ofSeconds(120));
    assertThat(RetryAfter.parse(" 0 ", NOW).delay()).isEqualTo(Duration.ZERO);
  }

  @Test
  void http_date_is_a_delay_from_now() {
    assertThat(RetryAfter.parse("Wed, 21 Oct 2015 07:28:30 GMT", NOW).delay())
        .isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void http_date_in_the_past_means_now() {
    assertThat(RetryAfter.parse("Wed, 21 Oct 2015 07:00:00 GMT", NOW).delay())
        .isEqualTo(Duration.ZERO);
  }

  @Test
  void malformed_values_are_flagged_and_give_no_delay() {
    for (String bad : new String[] {"", "soon", "-5", "1.5", "Tomorrow, 99 Foo 2015"}) {
      RetryAfter.Parsed parsed = RetryAfter.parse(bad, NOW);
      assertThat(parsed.malformed()).as(bad).isTrue();
      assertThat(parsed.delay()).as(bad).isNull();
    }
  }

  @Test
  void absent_header_is_not_malformed() {
    assertThat(RetryAfter.parse(null, NOW).malformed()).isFalse();
    assertThat(RetryAfter.parse(null, NOW).delay()).isNull();
  }

  @Test
  void huge_delta_does_not_overflow() {
    assertThat(RetryAfter.parse("99999999999999999999999", NOW).delay()).isPositive();
  }
}
