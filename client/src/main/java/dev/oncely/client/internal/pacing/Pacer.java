package dev.oncely.client.internal.pacing;

import dev.oncely.client.internal.EngineClock;
import dev.oncely.client.PendingReason;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryBudgetExhaustedException;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.internal.pacing.BudgetRules.Resend;
import java.time.Duration;
import java.time.Instant;

/**
 * The pace of one drive or intercepted call: how long to wait before the next attempt, and when to
 * stop because the policy's attempts or deadline ran out, or the host's retry budget cannot pay
 * for a retry before the deadline (it delays retries until then). Shared by the
 * intent API and the interceptor so both stop for the same reasons. The deadline, the time left
 * and the attempt timeouts are measured on the {@linkplain EngineClock#nanos() monotonic clock},
 * so a step of the wall clock during the drive neither cuts it short nor stretches it; only the
 * due time it reports for the record is wall time. Not thread-safe.
 */
public final class Pacer {
  /**
   * The wait before the next attempt, or why there is none; {@code shaped}: the retry budget made
   * the wait longer than the answer asked for.
   */
  public record Pace(Duration delay, Instant due, PendingReason stop,
      RetryBudgetExhaustedException refusal, boolean shaped) {
    /** Whether the drive goes on after {@link #delay()}. */
    public boolean goesOn() {
      return stop == null;
    }
  }

  private final RetryPolicy policy;
  private final BudgetRules budget;
  private final Waits waits;
  private final EngineClock clock;
  private final long start;
  private int attempts;

  /** Paces a drive that starts now under {@code policy}. */
  public Pacer(RetryPolicy policy, RetryBudget budget, Waits waits, EngineClock clock) {
    this.policy = policy;
    this.budget = new BudgetRules(budget, clock);
    this.waits = waits;
    this.clock = clock;
    this.start = clock.nanos();
  }

  /** The time left before this drive gives up; zero once the deadline has passed. */
  public Duration timeLeft() {
    Duration left = policy.deadline().minusNanos(clock.nanos() - start);
    return left.isNegative() ? Duration.ZERO : left;
  }

  /** Whether the deadline has passed. */
  public boolean pastDeadline() {
    return timeLeft().isZero();
  }

  /** The timeout of the next attempt in milliseconds: the policy's, cut to the time left. */
  public long attemptTimeoutMillis() {
    long left = Math.max(1, timeLeft().toMillis());
    return Math.min(policy.attemptTimeout().toMillis(), left);
  }

  /** Counts {@code n} attempts of this drive: requests of the intent on the wire. */
  public void attempted(int n) {
    attempts += n;
  }

  /**
   * Reports that an attempt to {@code host} got {@code response} (null: no answer), for the retry
   * budget's refund ({@link BudgetRules}).
   */
  public void answered(String host, StoredResponse response) {
    budget.answered(host, response);
  }

  /**
   * What follows an answer that asks for another attempt, {@code why}: the wait (from {@code
   * Retry-After} or backoff, made longer when the retry budget of {@code host} must refill first
   * for a resend that costs, as {@link BudgetRules} says), or the reason to stop: attempts used,
   * deadline reached, or no budget before the deadline. {@code processing}, when not null, is the
   * reason to stop with when the attempts or the deadline run out while the server said the
   * operation is under way ({@link PendingReason#STILL_PROCESSING}, {@link
   * PendingReason#KEY_IN_USE}).
   */
  public Pace next(StoredResponse answer, Resend why, PendingReason processing, String host) {
    Instant now = clock.wall();
    Duration left = timeLeft();
    Duration delay = waits.next(answer, now);
    Instant due = now.plus(delay);
    if (attempts >= policy.maxAttempts()) {
      return stop(due, processing != null ? processing : PendingReason.ATTEMPTS_EXHAUSTED, null);
    }
    if (delay.compareTo(left) >= 0) {
      return stop(due, processing != null ? processing : PendingReason.DEADLINE_EXCEEDED, null);
    }
    boolean shaped = false;
    try {
      Duration tokens = budget.resend(host, why, answer, left);
      if (tokens.compareTo(delay) > 0) {
        delay = tokens;
        due = now.plus(delay);
        shaped = true;
      }
    } catch (RetryBudgetExhaustedException e) {
      return stop(due, PendingReason.RETRY_BUDGET_EXHAUSTED, e);
    }
    return new Pace(delay, due, null, null, shaped);
  }

  /** Whether {@code answer} carried a usable {@code Retry-After}. */
  public static boolean serverChose(StoredResponse answer) {
    return Waits.serverChose(answer);
  }

  private static Pace stop(Instant due, PendingReason reason, RetryBudgetExhaustedException e) {
    return new Pace(null, due, reason, e, false);
  }
}
