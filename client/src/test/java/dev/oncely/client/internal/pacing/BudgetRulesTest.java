package dev.oncely.client.internal.pacing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryBudgetExhaustedException;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.internal.EngineClock;
import dev.oncely.client.internal.pacing.BudgetRules.Resend;
import dev.oncely.client.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BudgetRulesTest {
  private static final String HOST = "api.example.test";

  private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T00:00:00Z"));

  private static StoredResponse status(int code) {
    return StoredResponse.of(code, Map.of(), new byte[0]);
  }

  private static StoredResponse retryAfter(int code, String value) {
    return StoredResponse.of(code, Map.of("Retry-After", List.of(value)), new byte[0]);
  }

  @Test
  void only_a_resend_after_a_failure_costs() {
    for (Resend why : Resend.values()) {
      assertThat(BudgetRules.costs(why, status(503))).as("%s after a 503", why)
          .isEqualTo(why == Resend.AFTER_FAILURE);
      assertThat(BudgetRules.costs(why, null)).as("%s after no answer", why)
          .isEqualTo(why == Resend.AFTER_FAILURE);
    }
  }

  @Test
  void a_resend_at_a_time_the_server_named_is_free() {
    assertThat(BudgetRules.costs(Resend.AFTER_FAILURE, retryAfter(503, "2"))).isFalse();
    assertThat(BudgetRules.costs(Resend.AFTER_FAILURE, retryAfter(429, "1"))).isFalse();
    assertThat(BudgetRules.costs(Resend.AFTER_FAILURE, retryAfter(503, "0")))
        .as("\"now\" names no time").isTrue();
    assertThat(BudgetRules.costs(Resend.AFTER_FAILURE, retryAfter(503, "soon")))
        .as("unreadable").isTrue();
  }

  @Test
  void answers_that_show_the_host_serving_refund() {
    for (int code : new int[] {200, 201, 202, 204, 301, 307, 400, 401, 404, 409, 422, 499}) {
      assertThat(BudgetRules.refunds(status(code))).as("%s", code).isTrue();
    }
    for (int code : new int[] {429, 500, 502, 503, 504}) {
      assertThat(BudgetRules.refunds(status(code))).as("%s", code).isFalse();
    }
    assertThat(BudgetRules.refunds(null)).as("no answer").isFalse();
  }

  @Test
  void the_rules_charge_and_refund_on_the_engine_clock() throws Exception {
    RetryBudget budget = RetryBudget.builder().capacity(10).retryCost(5).successRefund(1)
        .refillPerSecond(1).build();
    BudgetRules rules = new BudgetRules(budget, EngineClock.of(clock));

    assertThat(rules.resend(HOST, Resend.AFTER_FAILURE, status(503), Duration.ofMinutes(1)))
        .isZero();
    assertThat(rules.resend(HOST, Resend.AFTER_FAILURE, status(503), Duration.ofMinutes(1)))
        .isZero();
    assertThat(rules.resend(HOST, Resend.UNDER_WAY, status(409), Duration.ZERO))
        .as("free: takes nothing").isZero();
    assertThat(rules.resend(HOST, Resend.AFTER_FAILURE, status(503), Duration.ofMinutes(1)))
        .as("5 tokens at 1 a second, on the engine's clock").isEqualTo(Duration.ofSeconds(5));

    clock.advance(Duration.ofSeconds(5));
    rules.answered(HOST, status(201));
    rules.answered(HOST, status(503));
    rules.answered(HOST, null);

    assertThat(budget.available(HOST, clock.nanos())).as("5 refilled, 5 reserved, 1 refunded")
        .isEqualTo(1);
    assertThatThrownBy(() -> rules.resend(HOST, Resend.AFTER_FAILURE, status(503),
        Duration.ofSeconds(3))).isInstanceOf(RetryBudgetExhaustedException.class);
    assertThat(budget.available(HOST, clock.nanos())).as("a refusal takes nothing").isEqualTo(1);
  }
}
