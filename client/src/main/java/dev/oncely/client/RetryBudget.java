package dev.oncely.client;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A token bucket per host that shapes retries against a failing server instead of ending intents.
 * Every host starts full at {@link #capacity()}; a retry the client chooses after a failure
 * (timeout, reset, {@code 5xx} or {@code 429} without {@code Retry-After}, ...) takes {@link
 * #retryCost()} tokens, every success puts {@link #successRefund()} back, and the bucket refills by
 * itself at {@link #refillPerSecond()} tokens a second, up to the capacity.
 *
 * <p><b>Shaping, not refusing.</b> When a host's bucket cannot pay for a retry now, the retry is
 * {@linkplain #reserveRetry reserved} for the moment the refill will have paid for it: the drive
 * waits that long (on a timer, holding no thread) and then sends. Retries to a failing host are so
 * spread at the refill rate, and an intent whose deadline still has time still finishes. Only a
 * retry that could not be paid before the intent's deadline is refused ({@link
 * RetryBudgetExhaustedException}; the intent API keeps the intent {@code PENDING} with {@link
 * PendingReason#RETRY_BUDGET_EXHAUSTED}, the interceptor throws the exception). With a refill rate
 * of 0 the bucket refills only on successes, and an empty bucket refuses at once.
 *
 * <p><b>What is free.</b> First attempts, polls of a {@code 202}, waits on a {@code 409 in
 * progress}, and a retry at the time a server named in {@code Retry-After}: the server chose that
 * load itself, and it is capped by the policy's maximum delay. Charging it would let one shedding
 * server turn every intent's named "come back in a second" into a refusal.
 *
 * <p><b>Time.</b> The refill is measured on a monotonic clock. The methods without a {@code
 * nowNanos} read {@link System#nanoTime()}; the engine calls the forms that take one with a
 * reading of its own clock ({@code System.nanoTime()} for the system clock, a test's controllable
 * clock its own), so a test that moves its clock moves the refill. One budget should be given
 * readings of one clock: the refill is the difference of two readings, and a reading behind the
 * bucket's latest counts as no time passed, never as tokens taken back.
 *
 * <p><b>Hosts kept.</b> Buckets are kept for the {@value #MAX_HOSTS} hosts used most recently; the
 * least recently used one beyond that is dropped, and its host starts again with a full bucket.
 * That is the permissive choice, and it is safe: the budget only shapes the load a failing host
 * sees, it never ends an intent whose deadline still has time, so forgetting a host's debt can at
 * most let one more burst of retries through, never lose or end an intent. A host is dropped only
 * between two operations on the budget, never during one.
 *
 * <p>Thread-safe; share one budget across clients that talk to the same hosts.
 *
 * <p>Defaults: capacity {@value #DEFAULT_CAPACITY}, retry cost {@value #DEFAULT_RETRY_COST}, refund
 * {@value #DEFAULT_SUCCESS_REFUND}, refill {@value #DEFAULT_REFILL_PER_SECOND} tokens a second.
 */
public final class RetryBudget {
  /** Default tokens per host. */
  public static final int DEFAULT_CAPACITY = 500;
  /** Default tokens one retry costs. */
  public static final int DEFAULT_RETRY_COST = 5;
  /** Default tokens one success refunds. */
  public static final int DEFAULT_SUCCESS_REFUND = 1;
  /** Default tokens a host's bucket regains each second by itself (two default retries). */
  public static final int DEFAULT_REFILL_PER_SECOND = 10;
  /**
   * Hosts a budget keeps a bucket for; beyond them the least recently used host is dropped and
   * starts again full.
   */
  public static final int MAX_HOSTS = 128;

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final int capacity;
  private final int retryCost;
  private final int successRefund;
  private final double refillPerSecond;
  /** Guarded by itself; every read and change of a bucket happens under that lock too. */
  private final Map<String, Bucket> buckets = new RecentHosts();

  private RetryBudget(Builder b) {
    this.capacity = b.capacity;
    this.retryCost = b.retryCost;
    this.successRefund = b.successRefund;
    this.refillPerSecond = b.refillPerSecond;
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A new budget with the defaults. */
  public static RetryBudget standard() {
    return builder().build();
  }

  /** A budget that never delays or refuses a retry (retry cost 0). */
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

  /** Tokens a host's bucket regains each second by itself. */
  public double refillPerSecond() {
    return refillPerSecond;
  }

  /**
   * Whole tokens left for {@code host} right now; negative while retries are reserved ahead of the
   * refill.
   */
  public int available(String host) {
    return available(host, System.nanoTime());
  }

  /**
   * Whole tokens left for {@code host} at {@code nowNanos}, a reading of the monotonic clock this
   * budget is used with (see the class comment); negative while retries are reserved ahead of the
   * refill. A host without a bucket has the capacity, and asking does not make it one.
   */
  public int available(String host, long nowNanos) {
    Objects.requireNonNull(host, "host");
    synchronized (buckets) {
      Bucket bucket = buckets.get(host);
      return bucket == null ? capacity : (int) Math.floor(bucket.tokens(nowNanos));
    }
  }

  /**
   * Takes the cost of one retry from {@code host}'s bucket, now or not at all.
   *
   * @throws RetryBudgetExhaustedException if the bucket holds fewer tokens than one retry costs;
   *     nothing is taken
   */
  public void acquireRetry(String host) throws RetryBudgetExhaustedException {
    reserveRetry(host, Duration.ZERO);
  }

  /**
   * Reserves the cost of one retry to {@code host}: at once if the bucket can pay now, else for
   * the moment the refill will have paid for it (retries reserved before it come first).
   *
   * @param within the longest acceptable wait (the time left before the intent's deadline)
   * @return how long from now the retry must wait for its tokens ({@link Duration#ZERO}: at once)
   * @throws RetryBudgetExhaustedException if the tokens would not be there within {@code within};
   *     nothing is taken
   */
  public Duration reserveRetry(String host, Duration within) throws RetryBudgetExhaustedException {
    return reserveRetry(host, within, System.nanoTime());
  }

  /**
   * {@link #reserveRetry(String, Duration)} at {@code nowNanos}, a reading of the monotonic clock
   * this budget is used with (see the class comment).
   *
   * @throws RetryBudgetExhaustedException if the tokens would not be there within {@code within};
   *     nothing is taken
   */
  public Duration reserveRetry(String host, Duration within, long nowNanos)
      throws RetryBudgetExhaustedException {
    Objects.requireNonNull(within, "within");
    synchronized (buckets) {
      Bucket bucket = bucket(host, nowNanos);
      double tokens = bucket.tokens(nowNanos);
      double after = tokens - retryCost;
      long waitNanos = 0;
      if (after < 0) {
        if (refillPerSecond <= 0) {
          throw new RetryBudgetExhaustedException(host, (int) Math.floor(tokens), retryCost);
        }
        waitNanos = (long) Math.ceil(-after / refillPerSecond * NANOS_PER_SECOND);
        if (waitNanos > within.toNanos()) {
          throw new RetryBudgetExhaustedException(host, (int) Math.floor(tokens), retryCost);
        }
      }
      bucket.set(after, nowNanos);
      return Duration.ofNanos(waitNanos);
    }
  }

  /** Puts the refund of one success back into {@code host}'s bucket, never above the capacity. */
  public void recordSuccess(String host) {
    recordSuccess(host, System.nanoTime());
  }

  /**
   * {@link #recordSuccess(String)} at {@code nowNanos}, a reading of the monotonic clock this
   * budget is used with (see the class comment).
   */
  public void recordSuccess(String host, long nowNanos) {
    synchronized (buckets) {
      Bucket bucket = bucket(host, nowNanos);
      bucket.set(Math.min(capacity, bucket.tokens(nowNanos) + successRefund), nowNanos);
    }
  }

  /** The number of hosts that have a bucket now. */
  int hostsKept() {
    synchronized (buckets) {
      return buckets.size();
    }
  }

  private Bucket bucket(String host, long nowNanos) {
    return buckets.computeIfAbsent(Objects.requireNonNull(host, "host"), h -> new Bucket(nowNanos));
  }

  /**
   * One host's tokens as of a moment on the monotonic clock; refilled lazily when read. Guarded by
   * the budget's map.
   */
  private final class Bucket {
    private double tokens = capacity;
    private long asOf;

    Bucket(long nowNanos) {
      this.asOf = nowNanos;
    }

    double tokens(long nowNanos) {
      // Compared as a difference, as System.nanoTime() asks: its readings may wrap around.
      long elapsed = nowNanos - asOf;
      if (elapsed <= 0) {
        return tokens;
      }
      return Math.min(capacity, tokens + elapsed / (double) NANOS_PER_SECOND * refillPerSecond);
    }

    void set(double tokens, long nowNanos) {
      this.tokens = tokens;
      if (nowNanos - asOf > 0) {
        this.asOf = nowNanos;
      }
    }
  }

  /** The buckets in order of use, the least recently used dropped beyond {@link #MAX_HOSTS}. */
  private static final class RecentHosts extends LinkedHashMap<String, Bucket> {
    RecentHosts() {
      super(16, 0.75f, true);
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
      return size() > MAX_HOSTS;
    }
  }

  @Override
  public String toString() {
    return "RetryBudget{capacity=" + capacity + ", retryCost=" + retryCost + ", successRefund="
        + successRefund + ", refillPerSecond=" + refillPerSecond + "}";
  }

  /** Builds {@link RetryBudget}s. Not thread-safe; each setter validates its argument. */
  public static final class Builder {
    private int capacity = DEFAULT_CAPACITY;
    private int retryCost = DEFAULT_RETRY_COST;
    private int successRefund = DEFAULT_SUCCESS_REFUND;
    private double refillPerSecond = DEFAULT_REFILL_PER_SECOND;

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

    /**
     * Sets the tokens a host's bucket regains each second by itself (0: only successes refill it,
     * and an empty bucket refuses retries at once).
     *
     * @throws IllegalArgumentException if {@code refillPerSecond} is negative or not finite
     */
    public Builder refillPerSecond(double refillPerSecond) {
      if (!(refillPerSecond >= 0) || Double.isInfinite(refillPerSecond)) {
        throw new IllegalArgumentException("refillPerSecond must be >= 0 and finite, was "
            + refillPerSecond);
      }
      this.refillPerSecond = refillPerSecond;
      return this;
    }

    /** Returns a new, full budget. */
    public RetryBudget build() {
      return new RetryBudget(this);
    }
  }
}
