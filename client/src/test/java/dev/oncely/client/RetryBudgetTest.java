package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RetryBudgetTest {

  @Test
  void retries_cost_tokens_until_the_bucket_refuses() throws Exception {
    RetryBudget budget = RetryBudget.builder().capacity(10).retryCost(5).build();

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
    RetryBudget budget = RetryBudget.builder().capacity(10).retryCost(5).successRefund(2).build();
    budget.acquireRetry("a.test");

    budget.recordSuccess("a.test");
    budget.recordSuccess("a.test");
    budget.recordSuccess("a.test");

    assertThat(budget.available("a.test")).isEqualTo(10);
  }

  @Test
  void each_host_has_its_own_bucket() throws Exception {
    RetryBudget budget = RetryBudget.builder().capacity(5).retryCost(5).build();
    budget.acquireRetry("a.test");

    budget.acquireRetry("b.test");

    assertThat(budget.available("a.test")).isZero();
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
    assertThatThrownBy(() -> RetryBudget.builder().successRefund(-1))
        .hasMessageContaining("successRefund");
  }
}
