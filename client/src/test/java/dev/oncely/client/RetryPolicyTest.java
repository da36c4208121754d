package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  @Test
  void every_backoff_delay_lies_between_zero_and_the_capped_exponential() {
    SplittableRandom seeds = new SplittableRandom(20261130L);
    for (int run = 0; run < 200; run++) {
      Duration base = Duration.ofNanos(1 + seeds.nextLong(5_000_000_000L));
      Duration cap = base.multipliedBy(1 + seeds.nextInt(5000));
      RetryPolicy policy = RetryPolicy.builder().baseDelay(base).maxDelay(cap).build();
      Random jitter = new Random(seeds.nextLong());
      for (int n = 0; n < 80; n++) {
        Duration ceiling = expectedCeiling(base, cap, n);
        assertThat(policy.backoffCeiling(n)).isEqualTo(ceiling);
        Duration delay = policy.backoff(n, jitter);
        assertThat(delay).isBetween(Duration.ZERO, ceiling);
      }
    }
  }

  private static Duration expectedCeiling(Duration base, Duration cap, int n) {
    java.math.BigInteger exp = java.math.BigInteger.valueOf(base.toNanos()).shiftLeft(n);
    java.math.BigInteger capNanos = java.math.BigInteger.valueOf(cap.toNanos());
    return Duration.ofNanos(exp.min(capNanos).longValueExact());
  }

  @Test
  void full_jitter_spreads_over_the_whole_range() {
    RetryPolicy policy = RetryPolicy.builder().baseDelay(Duration.ofMillis(100))
        .maxDelay(Duration.ofSeconds(10)).build();
    Random jitter = new Random(7);
    long low = 0;
    long high = 0;
    for (int i = 0; i < 2000; i++) {
      long ms = policy.backoff(3, jitter).toMillis();
      if (ms < 200) {
        low++;
      } else if (ms > 600) {
        high++;
      }
    }
    assertThat(low).isPositive();
    assertThat(high).isPositive();
  }

  @Test
  void zero_base_delay_means_no_wait() {
    RetryPolicy policy = RetryPolicy.builder().baseDelay(Duration.ZERO).build();

    assertThat(policy.backoff(5, new Random(1))).isEqualTo(Duration.ZERO);
  }

  @Test
  void settings_are_validated_with_the_setting_and_value_in_the_message() {
    assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(0))
        .hasMessage("maxAttempts must be >= 1, was 0");
    assertThatThrownBy(() -> RetryPolicy.builder().baseDelay(Duration.ofMillis(-1)))
        .hasMessageContaining("baseDelay");
    assertThatThrownBy(() -> RetryPolicy.builder().deadline(Duration.ZERO))
        .hasMessageContaining("deadline");
    assertThatThrownBy(() -> RetryPolicy.builder().attemptTimeout(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("attemptTimeout");
    assertThatThrownBy(() -> RetryPolicy.builder().baseDelay(Duration.ofSeconds(5))
        .maxDelay(Duration.ofSeconds(1)).build())
        .hasMessageContaining("baseDelay").hasMessageContaining("maxDelay");
    assertThatThrownBy(() -> RetryPolicy.defaults().backoffCeiling(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void to_builder_round_trips_every_setting() {
    RetryPolicy policy = RetryPolicy.builder().maxAttempts(3).baseDelay(Duration.ofMillis(5))
        .maxDelay(Duration.ofSeconds(2)).deadline(Duration.ofSeconds(9))
        .attemptTimeout(Duration.ofSeconds(1)).build();

    assertThat(policy.toBuilder().build().toString()).isEqualTo(policy.toString());
  }
}
