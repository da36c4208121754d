package dev.oncely.client;

import dev.oncely.client.internal.Durations;
import java.time.Duration;
import java.util.Objects;
import java.util.Random;

/**
 * When and how often an intent is tried again. Immutable and thread-safe: build it once and share
 * it.
 *
 * <p>The wait before retry {@code n} (0 for the first retry) is <em>full jitter</em>: a uniformly
 * random duration in {@code [0, min(cap, base * 2^n)]}. A {@code Retry-After} answer replaces that
 * wait, bounded by the cap. No attempt starts after the overall deadline; each attempt is cut off
 * after the per-attempt timeout (a cut-off after the request was written leaves the outcome
 * uncertain, never failed).
 *
 * <p>Defaults: {@value #DEFAULT_MAX_ATTEMPTS} attempts, base {@link #DEFAULT_BASE_DELAY}, cap {@link
 * #DEFAULT_MAX_DELAY}, deadline {@link #DEFAULT_DEADLINE}, per-attempt timeout {@link
 * #DEFAULT_ATTEMPT_TIMEOUT}.
 */
public final class RetryPolicy {
  /** Default total attempts, the first one included. */
  public static final int DEFAULT_MAX_ATTEMPTS = 6;
  /** Default base delay of the exponential backoff. */
  public static final Duration DEFAULT_BASE_DELAY = Duration.ofMillis(200);
  /** Default cap of one wait. */
  public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(20);
  /** Default overall deadline from the first attempt of one drive. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofMinutes(2);
  /** Default timeout of one attempt (the whole call: connect, write, wait, read). */
  public static final Duration DEFAULT_ATTEMPT_TIMEOUT = Duration.ofSeconds(30);

  private static final RetryPolicy DEFAULTS = builder().build();

  private final int maxAttempts;
  private final Duration baseDelay;
  private final Duration maxDelay;
  private final Duration deadline;
  private final Duration attemptTimeout;

  private RetryPolicy(Builder b) {
    this.maxAttempts = b.maxAttempts;
    this.baseDelay = b.baseDelay;
    this.maxDelay = b.maxDelay;
    this.deadline = b.deadline;
    this.attemptTimeout = b.attemptTimeout;
  }

  /** The policy with every default. */
  public static RetryPolicy defaults() {
    return DEFAULTS;
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns a builder holding this policy's settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.maxAttempts = maxAttempts;
    b.baseDelay = baseDelay;
    b.maxDelay = maxDelay;
    b.deadline = deadline;
    b.attemptTimeout = attemptTimeout;
    return b;
  }

  /** Total attempts per drive, the first one included. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** Base delay of the exponential backoff. */
  public Duration baseDelay() {
    return baseDelay;
  }

  /** Upper bound of any single wait, {@code Retry-After} included. */
  public Duration maxDelay() {
    return maxDelay;
  }

  /** Overall time one drive of an intent may take. */
  public Duration deadline() {
    return deadline;
  }

  /**
   * Timeout of one attempt, cut to the time left before the deadline. The intent API's own client
   * bounds the whole exchange of an attempt with it (OkHttp's call timeout). Through the
   * interceptor it bounds each of the attempt's connect, write and read (OkHttp lets an
   * interceptor set no per-attempt call timeout; the app's {@code callTimeout} bounds the whole
   * call). A claimed record is held until it has passed (see {@link DueTime}).
   */
  public Duration attemptTimeout() {
    return attemptTimeout;
  }

  /**
   * The upper bound of the wait before retry {@code retry} (0-based): {@code min(cap, base *
   * 2^retry)}, without overflow.
   *
   * @throws IllegalArgumentException if {@code retry} is negative
   */
  public Duration backoffCeiling(int retry) {
    if (retry < 0) {
      throw new IllegalArgumentException("retry must be >= 0, was " + retry);
    }
    long base = baseDelay.toNanos();
    long cap = maxDelay.toNanos();
    if (retry >= 62 || base > (cap >> Math.min(retry, 62))) {
      return maxDelay;
    }
    return Duration.ofNanos(Math.min(cap, base << retry));
  }

  /**
   * A full-jitter wait before retry {@code retry} (0-based): uniform in {@code [0,
   * backoffCeiling(retry)]}.
   *
   * @throws IllegalArgumentException if {@code retry} is negative
   * @throws NullPointerException if {@code random} is null
   */
  public Duration backoff(int retry, Random random) {
    Objects.requireNonNull(random, "random");
    long ceiling = backoffCeiling(retry).toNanos();
    if (ceiling == 0) {
      return Duration.ZERO;
    }
    // Random.nextDouble rather than nextLong(bound): the latter is missing on Android.
    return Duration.ofNanos(Math.min(ceiling, (long) (random.nextDouble() * (ceiling + 1.0))));
  }

  /** Whether {@code o} is a policy with the same five settings. */
  @Override
  public boolean equals(Object o) {
    return o instanceof RetryPolicy p && maxAttempts == p.maxAttempts
        && baseDelay.equals(p.baseDelay) && maxDelay.equals(p.maxDelay)
        && deadline.equals(p.deadline) && attemptTimeout.equals(p.attemptTimeout);
  }

  @Override
  public int hashCode() {
    return Objects.hash(maxAttempts, baseDelay, maxDelay, deadline, attemptTimeout);
  }

  @Override
  public String toString() {
    return "RetryPolicy{maxAttempts=" + maxAttempts + ", baseDelay=" + baseDelay + ", maxDelay="
        + maxDelay + ", deadline=" + deadline + ", attemptTimeout=" + attemptTimeout + "}";
  }

  /** Builds {@link RetryPolicy}s. Not thread-safe; each setter validates its argument. */
  public static final class Builder {
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration baseDelay = DEFAULT_BASE_DELAY;
    private Duration maxDelay = DEFAULT_MAX_DELAY;
    private Duration deadline = DEFAULT_DEADLINE;
    private Duration attemptTimeout = DEFAULT_ATTEMPT_TIMEOUT;

    private Builder() {}

    /**
     * Sets the total attempts per drive, the first included (1 = never retry).
     *
     * @throws IllegalArgumentException if {@code maxAttempts} is below 1
     */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * Sets the base delay of the exponential backoff.
     *
     * @throws IllegalArgumentException if it is null or negative
     */
    public Builder baseDelay(Duration baseDelay) {
      this.baseDelay = Durations.notNegative("baseDelay", baseDelay);
      return this;
    }

    /**
     * Sets the cap of a single wait, {@code Retry-After} included.
     *
     * @throws IllegalArgumentException if it is null or negative
     */
    public Builder maxDelay(Duration maxDelay) {
      this.maxDelay = Durations.notNegative("maxDelay", maxDelay);
      return this;
    }

    /**
     * Sets the overall deadline of one drive.
     *
     * @throws IllegalArgumentException if it is null, zero or negative
     */
    public Builder deadline(Duration deadline) {
      this.deadline = Durations.positive("deadline", deadline);
      return this;
    }

    /**
     * Sets the timeout of one attempt.
     *
     * @throws IllegalArgumentException if it is null, zero or negative
     */
    public Builder attemptTimeout(Duration attemptTimeout) {
      this.attemptTimeout = Durations.positive("attemptTimeout", attemptTimeout);
      return this;
    }

    /**
     * Returns the policy.
     *
     * @throws IllegalArgumentException if the base delay is larger than the cap
     */
    public RetryPolicy build() {
      if (baseDelay.compareTo(maxDelay) > 0) {
        throw new IllegalArgumentException("baseDelay " + baseDelay + " is larger than maxDelay "
            + maxDelay);
      }
      return new RetryPolicy(this);
    }
  }
}
