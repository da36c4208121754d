package dev.oncely.client.internal.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentId;
import dev.oncely.client.PendingReason;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryBudgetExhaustedException;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.internal.EngineClock;
import dev.oncely.client.internal.pacing.BudgetRules.Resend;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.MaxJitter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The pace of one drive: backoff with full jitter under its ceilings, {@code Retry-After} honoured
 * (capped, free of budget), the attempts and the deadline stopping it, and the retry budget
 * stretching or refusing a resend. Time is a manual clock, the retry budget's refill included: the
 * pacer gives the budget the engine clock's monotonic readings, and the test reads it on them too.
 */
class PacerTest {
  private static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");
  private static final IntentId ID = IntentId.of("tenant-1", "create-payment", "pay-7f3a");
  private static final String HOST = "api.example.test";

  /** 10 attempts, backoff 100 ms doubling to a 1 s cap, a 1 h deadline, 2 s per attempt. */
  private static final RetryPolicy POLICY = RetryPolicy.builder()
      .maxAttempts(10)
      .baseDelay(Duration.ofMillis(100))
      .maxDelay(Duration.ofSeconds(1))
      .deadline(Duration.ofHours(1))
      .attemptTimeout(Duration.ofSeconds(2))
      .build();

  private final ManualClock clock = new ManualClock(T0);
  private final List<IntentEvent> events = new ArrayList<>();

  private Pacer pacer(RetryPolicy policy, RetryBudget budget, Random random) {
    return new Pacer(policy, budget, new Waits(policy, random, events::add, ID),
        EngineClock.of(clock));
  }

  private Pacer pacer(RetryPolicy policy, RetryBudget budget) {
    return pacer(policy, budget, new MaxJitter());
  }

  private static StoredResponse answer(int status) {
    return StoredResponse.of(status, Map.of(), new byte[0]);
  }

  private static StoredResponse retryAfter(int status, String value) {
    return StoredResponse.of(status, Map.of("Retry-After", List.of(value)), new byte[0]);
  }

  /** A budget of one retry's tokens, refilled by {@code perSecond}. */
  private static RetryBudget oneRetry(double perSecond) {
    return RetryBudget.builder().capacity(5).retryCost(5).successRefund(0)
        .refillPerSecond(perSecond).build();
  }

  /** The pace after one more attempt answered {@code answer}, charged to the budget. */
  private static Pacer.Pace afterAttempt(Pacer pacer, StoredResponse answer,
      PendingReason processing) {
    pacer.attempted(1);
    return pacer.next(answer, Resend.AFTER_FAILURE, processing, HOST);
  }

  @Test
  void backoff_waits_double_from_the_base_up_to_the_cap_at_the_top_of_the_jitter() {
    Pacer pacer = pacer(POLICY, RetryBudget.unlimited());
    List<Duration> waits = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Pacer.Pace pace = afterAttempt(pacer, answer(503), null);
      assertThat(pace.goesOn()).isTrue();
      waits.add(pace.delay());
    }
    assertThat(waits).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200),
        Duration.ofMillis(400), Duration.ofMillis(800), Duration.ofSeconds(1),
        Duration.ofSeconds(1));
  }

  @Test
  void backoff_waits_stay_between_zero_and_each_ceiling_and_spread_with_the_jitter() {
    Random random = new Random(20260301L);
    Set<Duration> firstWaits = new HashSet<>();
    int belowHalf = 0;
    for (int drive = 0; drive < 200; drive++) {
      Pacer pacer = pacer(POLICY, RetryBudget.unlimited(), random);
      for (int retry = 0; retry < 6; retry++) {
        Duration wait = afterAttempt(pacer, null, null).delay();
        Duration ceiling = POLICY.backoffCeiling(retry);
        assertThat(wait).as("wait before retry %d", retry)
            .isBetween(Duration.ZERO, ceiling);
        if (wait.compareTo(ceiling.dividedBy(2)) < 0) {
          belowHalf++;
        }
        if (retry == 0) {
          firstWaits.add(wait);
        }
      }
    }
    assertThat(firstWaits).as("distinct first waits of 200 drives").hasSizeGreaterThan(150);
    assertThat(belowHalf).as("waits below half their ceiling, of 1200").isBetween(450, 750);
  }

  @Test
  void a_retry_after_is_the_wait_and_costs_no_budget() {
    RetryBudget budget = oneRetry(0);
    Pacer pacer = pacer(POLICY.toBuilder().maxDelay(Duration.ofSeconds(5)).build(), budget);

    Pacer.Pace asked = afterAttempt(pacer, retryAfter(429, "3"), null);
    assertThat(asked.delay()).isEqualTo(Duration.ofSeconds(3));
    assertThat(asked.due()).isEqualTo(T0.plusSeconds(3));
    assertThat(asked.shaped()).isFalse();
    assertThat(budget.available(HOST, clock.nanos())).as("tokens after a wait the server chose")
        .isEqualTo(5);

    // The server's wait took no backoff step either: the first backoff is the base.
    Pacer.Pace backoff = afterAttempt(pacer, answer(503), null);
    assertThat(backoff.delay()).isEqualTo(Duration.ofMillis(100));
    assertThat(budget.available(HOST, clock.nanos())).as("tokens after a charged resend")
        .isZero();

    Pacer.Pace refused = afterAttempt(pacer, answer(503), null);
    assertThat(refused.goesOn()).isFalse();
    assertThat(refused.stop()).isEqualTo(PendingReason.RETRY_BUDGET_EXHAUSTED);
    assertThat(refused.refusal()).isInstanceOf(RetryBudgetExhaustedException.class);

    Pacer.Pace stillFree = afterAttempt(pacer, retryAfter(503, "2"), null);
    assertThat(stillFree.goesOn()).as("an empty budget still pays a wait the server chose")
        .isTrue();
    assertThat(stillFree.delay()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void a_retry_after_longer_than_the_cap_waits_the_cap() {
    Pacer pacer = pacer(POLICY, RetryBudget.unlimited());
    assertThat(afterAttempt(pacer, retryAfter(503, "120"), null).delay())
        .isEqualTo(POLICY.maxDelay());
  }

  @Test
  void a_retry_after_given_as_an_http_date_is_read_against_the_wall_clock() {
    Pacer pacer = pacer(POLICY.toBuilder().maxDelay(Duration.ofSeconds(10)).build(),
        RetryBudget.unlimited());
    String date = DateTimeFormatter.RFC_1123_DATE_TIME
        .format(T0.plusSeconds(7).atZone(ZoneOffset.UTC));
    assertThat(afterAttempt(pacer, retryAfter(503, date), null).delay())
        .isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void a_zero_or_malformed_retry_after_falls_back_to_backoff_and_a_malformed_one_is_reported() {
    Pacer pacer = pacer(POLICY, RetryBudget.unlimited());
    assertThat(afterAttempt(pacer, retryAfter(503, "0"), null).delay())
        .isEqualTo(Duration.ofMillis(100));
    assertThat(events).isEmpty();
    assertThat(afterAttempt(pacer, retryAfter(503, "soon"), null).delay())
        .isEqualTo(Duration.ofMillis(200));
    assertThat(events).containsExactly(new IntentEvent.MalformedRetryAfter(ID, 4));
    assertThat(Pacer.serverChose(retryAfter(503, "0"))).isFalse();
    assertThat(Pacer.serverChose(retryAfter(503, "soon"))).isFalse();
    assertThat(Pacer.serverChose(retryAfter(503, "1"))).isTrue();
  }

  @Test
  void the_last_attempt_stops_the_drive_with_attempts_exhausted_or_what_the_server_said() {
    RetryPolicy twoAttempts = POLICY.toBuilder().maxAttempts(2).build();
    Pacer pacer = pacer(twoAttempts, RetryBudget.unlimited());
    assertThat(afterAttempt(pacer, answer(503), null).goesOn()).isTrue();

    pacer.attempted(1);
    Pacer.Pace plain = pacer.next(answer(503), Resend.AFTER_FAILURE, null, HOST);
    assertThat(plain.stop()).isEqualTo(PendingReason.ATTEMPTS_EXHAUSTED);
    assertThat(plain.delay()).isNull();
    assertThat(plain.due()).as("due when the wait would have ended").isNotNull();
    assertThat(pacer.next(answer(202), Resend.UNDER_WAY, PendingReason.STILL_PROCESSING, HOST)
        .stop())
        .isEqualTo(PendingReason.STILL_PROCESSING);
    assertThat(pacer.next(answer(409), Resend.UNDER_WAY, PendingReason.KEY_IN_USE, HOST).stop())
        .isEqualTo(PendingReason.KEY_IN_USE);
  }

  @Test
  void a_wait_that_reaches_the_deadline_stops_with_deadline_exceeded_or_what_the_server_said() {
    RetryPolicy twoSeconds = POLICY.toBuilder().deadline(Duration.ofSeconds(2)).build();
    Pacer pacer = pacer(twoSeconds, RetryBudget.unlimited());
    clock.advance(Duration.ofMillis(1_500));

    Pacer.Pace cut = afterAttempt(pacer, retryAfter(503, "1"), null);
    assertThat(cut.stop()).isEqualTo(PendingReason.DEADLINE_EXCEEDED);
    assertThat(cut.due()).as("the wait the server asked, as wall time")
        .isEqualTo(T0.plusMillis(2_500));
    assertThat(afterAttempt(pacer, retryAfter(409, "1"), PendingReason.KEY_IN_USE).stop())
        .isEqualTo(PendingReason.KEY_IN_USE);
    assertThat(afterAttempt(pacer, answer(503), null).goesOn())
        .as("a backoff of 100 ms still fits in the 500 ms left").isTrue();
  }

  @Test
  void time_left_runs_on_the_monotonic_clock_and_a_wall_step_moves_only_the_due_time() {
    RetryPolicy tenSeconds = POLICY.toBuilder().deadline(Duration.ofSeconds(10)).build();
    Pacer pacer = pacer(tenSeconds, RetryBudget.unlimited());
    clock.stepWall(Duration.ofHours(-1));
    assertThat(pacer.timeLeft()).isEqualTo(Duration.ofSeconds(10));
    assertThat(afterAttempt(pacer, answer(503), null).due())
        .isEqualTo(T0.minus(Duration.ofHours(1)).plusMillis(100));

    clock.advance(Duration.ofSeconds(4));
    assertThat(pacer.timeLeft()).isEqualTo(Duration.ofSeconds(6));
    assertThat(pacer.attemptTimeoutMillis()).as("the policy's attempt timeout").isEqualTo(2_000);
    clock.advance(Duration.ofSeconds(5));
    assertThat(pacer.attemptTimeoutMillis()).as("cut to the time left").isEqualTo(1_000);
    assertThat(pacer.pastDeadline()).isFalse();
    clock.advance(Duration.ofSeconds(2));
    assertThat(pacer.timeLeft()).isZero();
    assertThat(pacer.pastDeadline()).isTrue();
    assertThat(pacer.attemptTimeoutMillis()).as("never zero: OkHttp reads 0 as no timeout")
        .isEqualTo(1);
  }

  @Test
  void a_budget_that_must_refill_stretches_the_wait_and_says_so() {
    RetryBudget budget = oneRetry(1);
    Pacer pacer = pacer(POLICY, budget);
    Pacer.Pace first = afterAttempt(pacer, answer(503), null);
    assertThat(first.delay()).isEqualTo(Duration.ofMillis(100));
    assertThat(first.shaped()).isFalse();

    // The bucket is empty; 5 tokens at 1 a second: about 5 s, less what refilled since.
    Pacer.Pace second = afterAttempt(pacer, answer(503), null);
    assertThat(second.goesOn()).isTrue();
    assertThat(second.shaped()).isTrue();
    assertThat(second.delay()).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(5));
    assertThat(second.due()).isEqualTo(T0.plus(second.delay()));
  }

  @Test
  void a_budget_that_cannot_refill_before_the_deadline_refuses_and_takes_nothing() {
    RetryBudget budget = oneRetry(1);
    Pacer pacer = pacer(POLICY.toBuilder().deadline(Duration.ofSeconds(3)).build(), budget);
    assertThat(afterAttempt(pacer, answer(503), null).goesOn()).isTrue();

    Pacer.Pace refused = afterAttempt(pacer, answer(503), null);
    assertThat(refused.stop()).isEqualTo(PendingReason.RETRY_BUDGET_EXHAUSTED);
    assertThat(refused.refusal()).isInstanceOf(RetryBudgetExhaustedException.class);
    assertThat(budget.available(HOST, clock.nanos())).as("nothing reserved ahead of the refill")
        .isNotNegative();
  }

  @Test
  void a_resend_the_server_asked_for_without_a_failure_takes_nothing_from_the_budget() {
    RetryBudget budget = oneRetry(0);
    Pacer pacer = pacer(POLICY, budget);
    for (int i = 0; i < 3; i++) {
      pacer.attempted(1);
      assertThat(pacer.next(answer(409), Resend.UNDER_WAY, PendingReason.KEY_IN_USE, HOST).goesOn())
          .isTrue();
    }
    assertThat(budget.available(HOST, clock.nanos())).isEqualTo(5);
  }
}
