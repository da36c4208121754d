package dev.oncely.client.internal.pacing;

import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryBudgetExhaustedException;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.internal.EngineClock;
import java.time.Duration;

/**
 * What the retry budget charges and what it refunds, both here: the drive reports what happened
 * (an attempt was answered, a resend was asked and why), these rules decide what that is worth,
 * and the {@link RetryBudget} holds the tokens. Every reading of time given to the budget is the
 * engine's monotonic clock, so a test's clock drives the refill.
 *
 * <ul>
 *   <li><b>Refund:</b> an answer that shows the host serving: any status below {@code 500} but
 *       {@code 429} ({@code 2xx}, {@code 202}, {@code 3xx}, a business {@code 4xx}).
 *   <li><b>Cost:</b> a resend {@linkplain Resend#AFTER_FAILURE after a failure}, the retry the
 *       client chooses, unless the answer named the time in {@code Retry-After}: the server chose
 *       that load itself, and charging it would turn a shedding server's "come back in a second"
 *       into refusals.
 *   <li><b>Free:</b> first attempts, and every other resend: the server said the operation is
 *       under way, redirected the request within its origin, lost its status URL, or the
 *       credentials were renewed after a refusal.
 * </ul>
 *
 * <p>Thread-safe as the budget is; holds no state of a drive.
 */
public final class BudgetRules {
  /** Why a resend is asked: the fact its cost follows from (with {@code Retry-After}). */
  public enum Resend {
    /**
     * No answer, or one that asks for nothing but trying again: a transient status, a refusal
     * that cannot be trusted after a maybe-delivered attempt, credentials that could not be
     * renewed, a status URL answering neither a status nor "processing".
     */
    AFTER_FAILURE,
    /** The server said the operation is under way: {@code 202}, in progress, still processing. */
    UNDER_WAY,
    /** A {@code 307} or {@code 308} within the intent's origin: the same request, elsewhere. */
    REDIRECTED,
    /** The status URL is gone ({@code 404}, {@code 410}): the submit again with the same key. */
    STATUS_GONE,
    /** Fresh credentials after a {@code 401} or {@code 407}: the refused attempt had no effect. */
    RENEWED_CREDENTIALS
  }

  private final RetryBudget budget;
  private final EngineClock clock;

  /** The rules over {@code budget}, read and refilled on {@code clock}'s monotonic time. */
  public BudgetRules(RetryBudget budget, EngineClock clock) {
    this.budget = budget;
    this.clock = clock;
  }

  /** Reports that an attempt to {@code host} got {@code response} (null: no answer). */
  public void answered(String host, StoredResponse response) {
    if (refunds(response)) {
      budget.recordSuccess(host, clock.nanos());
    }
  }

  /**
   * Pays for a resend to {@code host} asked for {@code why} after {@code answer}.
   *
   * @param within the longest acceptable wait for the tokens (the time left before the deadline)
   * @return how long the resend must wait for its tokens; {@link Duration#ZERO} when it is free or
   *     paid at once
   * @throws RetryBudgetExhaustedException if it costs and the tokens would not be there within
   *     {@code within}; nothing is taken
   */
  public Duration resend(String host, Resend why, StoredResponse answer, Duration within)
      throws RetryBudgetExhaustedException {
    if (!costs(why, answer)) {
      return Duration.ZERO;
    }
    return budget.reserveRetry(host, within, clock.nanos());
  }

  /** Whether {@code response} (null: no answer) refunds the budget: it shows the host serving. */
  public static boolean refunds(StoredResponse response) {
    return response != null && response.status() < 500 && response.status() != 429;
  }

  /** Whether a resend asked for {@code why} after {@code answer} costs the budget a retry. */
  public static boolean costs(Resend why, StoredResponse answer) {
    return why == Resend.AFTER_FAILURE && !Waits.serverChose(answer);
  }
}
