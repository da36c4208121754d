package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RetryBudgetTest {

  @Test
  void retries_cost_tokens_until_the_bucket_refuses() throws Exception {
    RetryBudget budget = RetryBudget.builder().capacity(10).retryCost(5).refillPerSecond(0)
        .build();

    budget.acquireRetry("a.test");
    budget.acquireRetry("a.test");

    assertThatThrownBy(() -> budget.acquireRetry("a.test"))
        .isInstanceOfSatisfying(RetryBudgetExhaustedException.class, e -> {
          assertThat(e.host()).isEqualTo("a.test");
          assertThat(e.available()).isZero();
          assertThat(e.cost()).isEqualTo(5);
        });
  }

  @Test
  void successes_refund_up_to_the_capacity() throws Exception {
    RetryBudget budget = RetryBudget.builder().capacity(10).retryCost(5).successRefund(2)
        .refillPerSecond(0).build();
    budget.acquireRetry("a.test");

    budget.recordSuccess("a.test");
    budget.recordSuccess("a.test");
    budget.recordSuccess("a.test");

    assertThat(budget.available("a.test")).isEqualTo(10);
  }

  @Test
  void each_host_has_its_own_bucket() throws Exception {
    RetryBudget budget = RetryBudget.builder().capacity(5).retryCost(5).refillPerSecond(0).build();
    budget.acquireRetry("a.test");

    budget.acquireRetry("b.test");

    assertThat(budget.available("a.test")).isZero();
  }

  @Test
  void an_empty_bucket_reserves_the_retry_for_when_the_refill_has_paid_for_it() throws Exception {
    RetryBudget budget = RetryBudget.builder().capacity(5).retryCost(5).refillPerSecond(10)
        .build();
    assertThat(budget.reserveRetry("a.test", Duration.ofMinutes(1))).isZero();

    Duration first = budget.reserveRetry("a.test", Duration.ofMinutes(1));
    Duration second = budget.reserveRetry("a.test", Duration.ofMinutes(1));

    // 5 tokens at 10 a second: half a second each, the second queued behind the first.
    assertThat(first).isBetween(Duration.ofMillis(400), Duration.ofMillis(500));
    assertThat(second).isBetween(Duration.ofMillis(900), Duration.ofMillis(1000));
    assertThat(budget.available("a.test")).isNegative();
  }

  @Test
  void a_reservation_past_the_time_left_is_refused_and_takes_nothing() throws Exception {
    RetryBudget budget = RetryBudget.builder().capacity(5).retryCost(5).refillPerSecond(1)
        .build();
    budget.acquireRetry("a.test");

    assertThatThrownBy(() -> budget.reserveRetry("a.test", Duration.ofSeconds(2)))
        .isInstanceOf(RetryBudgetExhaustedException.class);
    assertThat(budget.reserveRetry("a.test", Duration.ofSeconds(10)))
        .isBetween(Duration.ofMillis(4000), Duration.ofMillis(5000));
  }

  @Test
  void without_refill_an_empty_bucket_refuses_at_once() {
    RetryBudget budget = RetryBudget.builder().capacity(0).refillPerSecond(0).build();

    assertThatThrownBy(() -> budget.reserveRetry("a.test", Duration.ofDays(1)))
        .isInstanceOf(RetryBudgetExhaustedException.class);
  }

  @Test
  void unlimited_budget_never_refuses() throws Exception {
    RetryBudget budget = RetryBudget.unlimited();
    for (int i = 0; i < 10_000; i++) {
      budget.acquireRetry("a.test");
    }
    assertThat(budget.available("a.test")).isEqualTo(RetryBudget.DEFAULT_CAPACITY);
  }

  @Test
  void negative_settings_are_refused() {
    assertThatThrownBy(() -> RetryBudget.builder().capacity(-1)).hasMessageContaining("capacity");
    assertThatThrownBy(() -> RetryBudget.builder().retryCost(-1)).hasMessageContaining("retryCost");
    assertThatThrownBy(() -> RetryBudget.builder().refillPerSecond(-1))
        .hasMessageContaining("refillPerSecond");
    assertThatThrownBy(() -> RetryBudget.builder().refillPerSecond(Double.NaN))
        .hasMessageContaining("refillPerSecond");
    assertThatThrownBy(() -> RetryBudget.builder().successRefund(-1))
        .hasMessageContaining("successRefund");
  }

  @Test
  void the_refill_follows_the_clock_readings_it_is_given() throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-12-01T00:00:00Z"));
    RetryBudget budget = RetryBudget.builder().capacity(10).retryCost(5).refillPerSecond(1)
        .build();
    budget.reserveRetry("a.test", Duration.ZERO, clock.nanos());
    budget.reserveRetry("a.test", Duration.ZERO, clock.nanos());
    assertThat(budget.available("a.test", clock.nanos())).isZero();

    clock.advance(Duration.ofSeconds(2));

    assertThat(budget.available("a.test", clock.nanos())).isEqualTo(2);
    // 2 tokens of 5: the retry waits exactly the 3 seconds the refill needs on this clock.
    assertThat(budget.reserveRetry("a.test", Duration.ofMinutes(1), clock.nanos()))
        .isEqualTo(Duration.ofSeconds(3));
    clock.advance(Duration.ofSeconds(3));
    assertThat(budget.available("a.test", clock.nanos())).isZero();
    clock.advance(Duration.ofHours(1));
    assertThat(budget.available("a.test", clock.nanos())).as("never above the capacity")
        .isEqualTo(10);
  }

  @Test
  void successes_refund_at_the_clock_reading_they_are_given() throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-12-01T00:00:00Z"));
    RetryBudget budget = RetryBudget.builder().capacity(10).retryCost(10).successRefund(1)
        .refillPerSecond(1).build();
    budget.reserveRetry("a.test", Duration.ZERO, clock.nanos());

    clock.advance(Duration.ofSeconds(4));
    budget.recordSuccess("a.test", clock.nanos());

    assertThat(budget.available("a.test", clock.nanos())).as("4 refilled, 1 refunded")
        .isEqualTo(5);
  }

  @Test
  void a_reading_behind_the_buckets_latest_counts_as_no_time_passed() throws Exception {
    long second = Duration.ofSeconds(1).toNanos();
    RetryBudget budget = RetryBudget.builder().capacity(10).retryCost(10).refillPerSecond(1)
        .build();
    budget.reserveRetry("a.test", Duration.ZERO, 100 * second);

    assertThat(budget.available("a.test", 40 * second)).as("no tokens taken back").isZero();
    budget.recordSuccess("a.test", 40 * second);
    assertThat(budget.available("a.test", 102 * second)).as("refilled from the latest reading")
        .isEqualTo(3);
  }

  @Test
  void a_thousand_hosts_keep_at_most_the_most_recent_128_buckets() throws Exception {
    RetryBudget budget = RetryBudget.builder().capacity(10).retryCost(5).refillPerSecond(0)
        .build();

    for (int i = 0; i < 1_000; i++) {
      budget.acquireRetry("host-" + i + ".test");
      assertThat(budget.hostsKept()).isLessThanOrEqualTo(RetryBudget.MAX_HOSTS);
    }

    assertThat(RetryBudget.MAX_HOSTS).isEqualTo(128);
    assertThat(budget.hostsKept()).isEqualTo(128);
    assertThat(budget.available("host-999.test")).as("kept").isEqualTo(5);
    assertThat(budget.available("host-872.test")).as("the 128th most recent, kept").isEqualTo(5);
  }

  @Test
  void a_dropped_host_starts_again_with_a_full_bucket() throws Exception {
    RetryBudget budget = RetryBudget.builder().capacity(10).retryCost(5).refillPerSecond(0)
        .build();
    budget.acquireRetry("first.test");
    budget.acquireRetry("first.test");

    for (int i = 0; i < RetryBudget.MAX_HOSTS; i++) {
      budget.acquireRetry("host-" + i + ".test");
    }

    assertThat(budget.available("first.test")).isEqualTo(10);
    budget.acquireRetry("first.test");
    budget.acquireRetry("first.test");
  }

  @Test
  void a_host_in_use_keeps_its_bucket_while_a_thousand_others_come_and_go() throws Exception {
    RetryBudget budget = RetryBudget.builder().capacity(10).retryCost(5).successRefund(0)
        .refillPerSecond(0).build();
    budget.acquireRetry("busy.test");
    budget.acquireRetry("busy.test");

    for (int i = 0; i < 1_000; i++) {
      budget.acquireRetry("host-" + i + ".test");
      // The busy host's drives go on: each answer reports to its bucket.
      budget.recordSuccess("busy.test");
    }

    assertThat(budget.hostsKept()).isLessThanOrEqualTo(RetryBudget.MAX_HOSTS);
    assertThat(budget.available("busy.test")).as("still empty, never dropped and refilled")
        .isZero();
    assertThatThrownBy(() -> budget.acquireRetry("busy.test"))
        .isInstanceOf(RetryBudgetExhaustedException.class);
  }
}
