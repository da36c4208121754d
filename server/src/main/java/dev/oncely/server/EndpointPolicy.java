package dev.oncely.server;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * How one idempotent operation is served: its name (the "operation" of every receipt), whether a
 * key is required, how a repeat that arrives while the first runs is answered, how long keys are
 * kept, the handler's lease, whether a handler whose owner died may run again, the body limit,
 * the payload's volatile fields and which answer headers are replayed. Immutable.
 *
 * <p>Defaults: key required; a repeat in progress gets {@code 409} at once; keys kept 24 hours;
 * 30 s lease; a dead owner's request is not run again (it goes {@code PENDING} until recovered);
 * 1 MiB bodies; no volatile fields; replayed headers {@code Content-Type},
 * {@code Content-Language}, {@code Content-Location}, {@code Location}, {@code ETag},
 * {@code Last-Modified} and {@code Link}.
 */
public final class EndpointPolicy {
  /** The headers replayed unless the policy names others. */
  public static final Set<String> DEFAULT_REPLAYED_HEADERS = Set.of("content-type",
      "content-language", "content-location", "location", "etag", "last-modified", "link");
  /** Headers never stored or replayed, whatever a policy names. */
  public static final Set<String> NEVER_REPLAYED = Set.of("set-cookie", "set-cookie2",
      "authorization", "proxy-authorization", "www-authenticate", "proxy-authenticate",
      "idempotent-replayed", "content-length", "transfer-encoding", "connection");

  private final String operation;
  private final boolean keyRequired;
  private final Duration inProgressWait;
  private final Duration retention;
  private final Duration lease;
  private final boolean rerunSafe;
  private final long maxBodyBytes;
  private final Set<String> volatileFields;
  private final Set<String> replayedHeaders;

  private EndpointPolicy(Builder b) {
    this.operation = b.operation;
    this.keyRequired = b.keyRequired;
    this.inProgressWait = b.inProgressWait;
    this.retention = b.retention;
    this.lease = b.lease;
    this.rerunSafe = b.rerunSafe;
    this.maxBodyBytes = b.maxBodyBytes;
    this.volatileFields = Set.copyOf(b.volatileFields);
    this.replayedHeaders = Set.copyOf(b.replayedHeaders);
  }

  /**
   * A builder for operation {@code operation} (a name such as {@code payments.create}).
   *
   * @throws IllegalArgumentException if the name is blank or has a control character
   */
  public static Builder builder(String operation) {
    return new Builder(operation);
  }

  /** The operation every receipt of this endpoint is kept under. */
  public String operation() {
    return operation;
  }

  /** Whether a request without a key is refused with {@code 400} (else it runs unprotected). */
  public boolean keyRequired() {
    return keyRequired;
  }

  /**
   * How long a repeat waits for the first request to finish before it is answered {@code 409};
   * zero answers at once.
   */
  public Duration inProgressWait() {
    return inProgressWait;
  }

  /** How long a finished receipt is kept (published in the {@code 409}/{@code 422} bodies). */
  public Duration retention() {
    return retention;
  }

  /** The handler's lease: renewed while it runs; a repeat takes over only after it runs out. */
  public Duration lease() {
    return lease;
  }

  /**
   * Whether a request whose handler died mid-run (its lease ran out) may run again: true when
   * the handler's effects are transactional with the receipt or idempotent by themselves.
   */
  public boolean rerunSafe() {
    return rerunSafe;
  }

  /** The largest body this endpoint accepts; a larger one gets {@code 413} before it runs. */
  public long maxBodyBytes() {
    return maxBodyBytes;
  }

  /** JSON fields left out of the payload's fingerprint (a timestamp the client refreshes). */
  public Set<String> volatileFields() {
    return volatileFields;
  }

  /** The answer headers stored and replayed, lower-case. */
  public Set<String> replayedHeaders() {
    return replayedHeaders;
  }

  /** A builder holding every setting of this policy. */
  public Builder toBuilder() {
    Builder b = new Builder(operation);
    b.keyRequired = keyRequired;
    b.inProgressWait = inProgressWait;
    b.retention = retention;
    b.lease = lease;
    b.rerunSafe = rerunSafe;
    b.maxBodyBytes = maxBodyBytes;
    b.volatileFields = new LinkedHashSet<>(volatileFields);
    b.replayedHeaders = new LinkedHashSet<>(replayedHeaders);
    return b;
  }

  @Override
  public String toString() {
    return "EndpointPolicy{" + operation + "}";
  }

  /** Builds {@link EndpointPolicy} values. Not thread-safe. */
  public static final class Builder {
    private final String operation;
    private boolean keyRequired = true;
    private Duration inProgressWait = Duration.ZERO;
    private Duration retention = Duration.ofHours(24);
    private Duration lease = Duration.ofSeconds(30);
    private boolean rerunSafe;
    private long maxBodyBytes = 1 << 20;
    private Set<String> volatileFields = new LinkedHashSet<>();
    private Set<String> replayedHeaders = new LinkedHashSet<>(DEFAULT_REPLAYED_HEADERS);

    Builder(String operation) {
      this.operation = dev.oncely.client.Identifiers.checkText("operation", operation);
    }

    /** Whether a request without a key is refused (default true). */
    public Builder keyRequired(boolean keyRequired) {
      this.keyRequired = keyRequired;
      return this;
    }

    /**
     * How long a repeat waits for the first request before {@code 409} (default zero, at most
     * 60 s: the wait holds the request's thread).
     *
     * @throws IllegalArgumentException if negative or over 60 s
     */
    public Builder inProgressWait(Duration wait) {
      Objects.requireNonNull(wait, "wait");
      if (wait.isNegative() || wait.compareTo(Duration.ofSeconds(60)) > 0) {
        throw new IllegalArgumentException("inProgressWait must be 0..60 s, was " + wait);
      }
      this.inProgressWait = wait;
      return this;
    }

    /**
     * How long finished receipts are kept (default 24 h, at least 1 minute): a client may retry
     * with the key that long.
     *
     * @throws IllegalArgumentException if under a minute
     */
    public Builder retention(Duration retention) {
      Objects.requireNonNull(retention, "retention");
      if (retention.compareTo(Duration.ofMinutes(1)) < 0) {
        throw new IllegalArgumentException("retention must be at least 1 minute, was "
            + retention);
      }
      this.retention = retention;
      return this;
    }

    /**
     * The handler's lease (default 30 s, 1 s to 1 h). It is renewed once a third of it is spent while
     * the handler runs, so only a dead or frozen owner loses it.
     *
     * @throws IllegalArgumentException if outside 1 s to 1 h
     */
    public Builder lease(Duration lease) {
      Objects.requireNonNull(lease, "lease");
      if (lease.compareTo(Duration.ofSeconds(1)) < 0 || lease.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("lease must be 1 s to 1 h, was " + lease);
      }
      this.lease = lease;
      return this;
    }

    /**
     * Declares that a request whose handler died may run again (default false): its effects are
     * in the same transaction as the receipt's recovery point, or idempotent by themselves.
     */
    public Builder rerunSafe(boolean rerunSafe) {
      this.rerunSafe = rerunSafe;
      return this;
    }

    /**
     * The largest accepted body (default 1 MiB).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxBodyBytes(long maxBodyBytes) {
      if (maxBodyBytes <= 0) {
        throw new IllegalArgumentException("maxBodyBytes must be positive, was " + maxBodyBytes);
      }
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    /** JSON fields left out of the fingerprint, by the client's rules (a name at any depth). */
    public Builder volatileFields(Collection<String> fields) {
      this.volatileFields = new LinkedHashSet<>(fields);
      return this;
    }

    /**
     * The answer headers stored and replayed, replacing the default list.
     *
     * @throws IllegalArgumentException if it names a credential, a cookie or a framing header
     *     ({@link #NEVER_REPLAYED})
     */
    public Builder replayedHeaders(Collection<String> names) {
      Set<String> lower = new LinkedHashSet<>();
      for (String n : names) {
        String l = n.toLowerCase(Locale.ROOT);
        if (NEVER_REPLAYED.contains(l)) {
          throw new IllegalArgumentException(n + " is never stored or replayed");
        }
        lower.add(l);
      }
      this.replayedHeaders = lower;
      return this;
    }

    /** Returns the policy. */
    public EndpointPolicy build() {
      return new EndpointPolicy(this);
    }
  }
}
