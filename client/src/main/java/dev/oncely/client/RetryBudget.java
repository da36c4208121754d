package dev.oncely.client;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A token bucket per host that stops retry storms against a failing server. Every host starts full
 * at {@link #capacity()}; a retry after a failure (timeout, reset, {@code 5xx}, {@code 429}, ...)
 * takes {@link #retryCost()} tokens, every success puts {@link #successRefund()} back, up to the
 * capacity. When a host's bucket cannot pay for a retry, the retry is refused at once: the intent
 * API keeps the intent {@code PENDING} with a {@link RetryBudgetExhaustedException} cause, the
 * interceptor throws that exception.
 *
 * <p>First attempts, polls of a {@code 202} and waits on a {@code 409 in progress} are free: they
 * do not load a failing server. Thread-safe and lock-free; share one budget across clients that talk
 * to the same hosts.
 *
 * <p>Defaults: capacity {@value #DEFAULT_CAPACITY}, retry cost {@value #DEFAULT_RETRY_COST}, refund
 * {@value #DEFAULT_SUCCESS_REFUND}.
 */
public final class RetryBudget {
  /** Default tokens per host. */
  public static final int DEFAULT_CAPACITY = 500;
  /** Default tokens one retry costs. */
  public static final int DEFAULT_RETRY_COST = 5;
  /** Default tokens one success refunds. */
  public static final int DEFAULT_SUCCESS_REFUND = 1;

  private final int capacity;
  private final int retryCost;
  private final int successRefund;
  private final ConcurrentMap<String, AtomicInteger> buckets = new ConcurrentHashMap<>();

  private RetryBudget(Builder b) {
    this.capacity = b.capacity;
    this.retryCost = b.retryCost;
    this.successRefund = b.successRefund;
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A new budget with the defaults. */
  public static RetryBudget standard() {
    return builder().build();
  }

  /** A budget that never refuses a retry (retry cost 0). */
  public static RetryBudget unlimited() {
    return builder().retryCost(0).build();
  }

  /** Tokens per host when full. */
  public int capacity() {
    return capacity;
  }

  /** Tokens a retry costs. */
  public int retryCost() {
    return retryCost;
  }

  /** Tokens a success refunds. */
  public int successRefund() {
    return successRefund;
  }

  /** Tokens left for {@code host} right now. */
  public int available(String host) {
    return bucket(host).get();
  }

  /**
   * Takes the cost of one retry from {@code host}'s bucket.
   *
   * @throws RetryBudgetExhaustedException if the bucket holds fewer tokens than one retry costs;
   *     nothing is taken
   */
  public void acquireRetry(String host) throws RetryBudgetExhaustedException {
    AtomicInteger bucket = bucket(host);
    while (true) {
      int now = bucket.get();
      if (now < retryCost) {
        throw new RetryBudgetExhaustedException(host, now, retryCost);
      }
      if (bucket.compareAndSet(now, now - retryCost)) {
        return;
      }
    }
  }

  /** Puts the refund of one success back into {@code host}'s bucket, never above the capacity. */
  public void recordSuccess(String host) {
    bucket(host).getAndUpdate(now -> Math.min(capacity, now + successRefund));
  }

  private AtomicInteger bucket(String host) {
    return buckets.computeIfAbsent(Objects.requireNonNull(host, "host"),
        h -> new AtomicInteger(capacity));
  }

  @Override
  public String toString() {
    return "RetryBudget{capacity=" + capacity + ", retryCost=" + retryCost + ", successRefund="
        + successRefund + "}";
  }

  /** Builds {@link RetryBudget}s. Not thread-safe; each setter validates its argument. */
  public static final class Builder {
    private int capacity = DEFAULT_CAPACITY;
    private int retryCost = DEFAULT_RETRY_COST;
    private int successRefund = DEFAULT_SUCCESS_REFUND;

    private Builder() {}

    /**
     * Sets the tokens per host when full.
     *
     * @throws IllegalArgumentException if {@code capacity} is negative
     */
    public Builder capacity(int capacity) {
      if (capacity < 0) {
        throw new IllegalArgumentException("capacity must be >= 0, was " + capacity);
      }
      this.capacity = capacity;
      return this;
    }

    /**
     * Sets the tokens one retry costs (0 = unlimited retries).
     *
     * @throws IllegalArgumentException if {@code retryCost} is negative
     */
    public Builder retryCost(int retryCost) {
      if (retryCost < 0) {
        throw new IllegalArgumentException("retryCost must be >= 0, was " + retryCost);
      }
      this.retryCost = retryCost;
      return this;
    }

    /**
     * Sets the tokens one success refunds.
     *
     * @throws IllegalArgumentException if {@code successRefund} is negative
     */
    public Builder successRefund(int successRefund) {
      if (successRefund < 0) {
        throw new IllegalArgumentException("successRefund must be >= 0, was " + successRefund);
      }
      this.successRefund = successRefund;
      return this;
    }

    /** Returns a new, full budget. */
    public RetryBudget build() {
      return new RetryBudget(this);
    }
  }
}
