package dev.oncely.client;

import java.io.IOException;

/**
 * A retry was refused because the {@link RetryBudget} for the host is empty: the server has failed
 * too often lately, so no retry storm is sent at it. For the intent API the record stays
 * {@code PENDING} with this exception as the cause (the outcome is still unknown); the
 * {@link IdempotencyInterceptor} throws it from {@code Call.execute()}.
 */
public class RetryBudgetExhaustedException extends IOException {
  private static final long serialVersionUID = 1L;

  /** The host whose budget is empty. */
  private final String host;
  /** The tokens left in the host's bucket. */
  private final int available;
  /** The tokens a retry costs. */
  private final int cost;

  /** Creates the exception for {@code host} holding {@code available} tokens of {@code cost}. */
  public RetryBudgetExhaustedException(String host, int available, int cost) {
    super("retry budget for host " + host + " is exhausted: a retry costs " + cost
        + " tokens, " + available + " are left; successes refill it");
    this.host = host;
    this.available = available;
    this.cost = cost;
  }

  /** The host whose budget is empty. */
  public String host() {
    return host;
  }

  /** Tokens left when the retry was refused. */
  public int available() {
    return available;
  }

  /** Tokens one retry costs. */
  public int cost() {
    return cost;
  }
}
