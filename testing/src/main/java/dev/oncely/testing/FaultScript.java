package dev.oncely.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import org.jspecify.annotations.Nullable;

/**
 * Which {@link Fault} the {@link IdempotentServer} injects into each request: scripted by request
 * number (every request the server receives counts, polls included, from 1), scripted by the
 * number of a request among those carrying the same idempotency key, by a custom {@link Rule}, or
 * drawn with a probability from a seeded {@link Random}. Immutable and thread-safe.
 *
 * <p>Precedence for one request: a fault scripted for its request number, then one scripted for
 * its number within its key, then the first rule that returns a fault, then the probabilistic
 * faults in the order they were added. Every request draws one value per probabilistic fault, in
 * that order, whether or not an earlier step chose a fault, so a sequential client sees the same
 * faults for the same seed. A probabilistic fault added {@linkplain Builder#withProbability(Fault,
 * double, int) as a burst} counts as drawn for the rest of its burst (an outage lasts several
 * requests).
 *
 * <pre>{@code
 * FaultScript script = FaultScript.builder()
 *     .onRequest(1, Fault.dropAfterCommit())          // the first request commits, then drops
 *     .onRequest(2, Fault.gatewayAfterCommit(524))    // the retry gets a Cloudflare 524
 *     .withProbability(Fault.stallAfterCommit(), 0.05)
 *     .seed(42)
 *     .build();
 * }</pre>
 */
public final class FaultScript {
  private static final FaultScript NONE = builder().build();

  /** Chooses a fault for a request from what it carries; return null for none. */
  @FunctionalInterface
  public interface Rule {
    /**
     * The fault for {@code request}, or null.
     *
     * @param request the request as received
     * @param requestOfKey its number among the requests with the same key (from 1), or 0 when it
     *     carries no key (a poll, a keyless request)
     */
    @Nullable Fault faultFor(ReceivedRequest request, int requestOfKey);
  }

  private final Map<Integer, Fault> byNumber;
  private final Map<Integer, Fault> byKeyNumber;
  private final List<Rule> rules;
  private final List<Fault> drawn;
  private final List<Double> probabilities;
  private final List<Integer> burstLengths;
  private final int[] burstLeft;
  private final long seed;
  private final @Nullable Duration stallFor;
  private final Random random;

  private FaultScript(Builder b) {
    this.byNumber = Map.copyOf(b.byNumber);
    this.byKeyNumber = Map.copyOf(b.byKeyNumber);
    this.rules = List.copyOf(b.rules);
    this.drawn = List.copyOf(b.drawn);
    this.probabilities = List.copyOf(b.probabilities);
    this.burstLengths = List.copyOf(b.burstLengths);
    this.burstLeft = new int[drawn.size()];
    this.seed = b.seed;
    this.stallFor = b.stallFor;
    this.random = new Random(b.seed);
  }

  /** A script that injects nothing. */
  public static FaultScript none() {
    return NONE;
  }

  /** A builder of an empty script with seed 0. */
  public static Builder builder() {
    return new Builder();
  }

  /** The seed of the probabilistic draws. */
  public long seed() {
    return seed;
  }

  /**
   * How long a {@link Fault#stallAfterCommit()} of this script holds the connection before it is
   * closed without an answer; empty: until the server closes.
   */
  public Optional<Duration> stallFor() {
    return Optional.ofNullable(stallFor);
  }

  /**
   * A fresh copy of this script whose probabilistic draws start again from the seed (a script
   * remembers its draws; a server given the copy sees the same faults as the first run).
   */
  public FaultScript restarted() {
    Builder b = builder().seed(seed);
    b.stallFor = stallFor;
    b.byNumber.putAll(byNumber);
    b.byKeyNumber.putAll(byKeyNumber);
    b.rules.addAll(rules);
    b.drawn.addAll(drawn);
    b.probabilities.addAll(probabilities);
    b.burstLengths.addAll(burstLengths);
    return b.build();
  }

  @Nullable Fault faultFor(ReceivedRequest request, int requestOfKey) {
    Fault chance = null;
    synchronized (random) {
      for (int i = 0; i < drawn.size(); i++) {
        boolean hit = random.nextDouble() < probabilities.get(i);
        if (burstLeft[i] > 0) {
          burstLeft[i]--;
          hit = true;
        } else if (hit) {
          burstLeft[i] = burstLengths.get(i) - 1;
        }
        if (hit && chance == null) {
          chance = drawn.get(i);
        }
      }
    }
    Fault f = byNumber.get(request.number());
    if (f == null && requestOfKey > 0) {
      f = byKeyNumber.get(requestOfKey);
    }
    for (int i = 0; f == null && i < rules.size(); i++) {
      f = rules.get(i).faultFor(request, requestOfKey);
    }
    return f != null ? f : chance;
  }

  @Override
  public String toString() {
    return "FaultScript[byRequest=" + byNumber + ", byRequestOfKey=" + byKeyNumber + ", rules="
        + rules.size() + ", drawn=" + drawn + " p=" + probabilities + " bursts=" + burstLengths
        + ", seed=" + seed + "]";
  }

  /**
   * Mutable, not thread-safe builder of {@link FaultScript}. Each setter names the setting and the
   * value it refuses.
   */
  public static final class Builder {
    private final Map<Integer, Fault> byNumber = new HashMap<>();
    private final Map<Integer, Fault> byKeyNumber = new HashMap<>();
    private final List<Rule> rules = new ArrayList<>();
    private final List<Fault> drawn = new ArrayList<>();
    private final List<Double> probabilities = new ArrayList<>();
    private final List<Integer> burstLengths = new ArrayList<>();
    private long seed;
    private @Nullable Duration stallFor;

    private Builder() {}

    /**
     * Injects {@code fault} into the server's {@code n}-th request (from 1, polls included).
     *
     * @throws IllegalArgumentException if {@code n < 1} or request {@code n} already has a fault
     * @throws NullPointerException if {@code fault} is null
     */
    public Builder onRequest(int n, Fault fault) {
      put(byNumber, n, fault, "onRequest");
      return this;
    }

    /**
     * Injects {@code fault} into the {@code n}-th request (from 1) of every idempotency key.
     *
     * @throws IllegalArgumentException if {@code n < 1} or number {@code n} already has a fault
     * @throws NullPointerException if {@code fault} is null
     */
    public Builder onRequestOfKey(int n, Fault fault) {
      put(byKeyNumber, n, fault, "onRequestOfKey");
      return this;
    }

    /**
     * Adds a rule consulted after the scripted numbers.
     *
     * @throws NullPointerException if {@code rule} is null
     */
    public Builder rule(Rule rule) {
      rules.add(Objects.requireNonNull(rule, "rule"));
      return this;
    }

    /**
     * Injects {@code fault} into each request with probability {@code p}.
     *
     * @throws IllegalArgumentException if {@code p} is not in [0, 1]
     * @throws NullPointerException if {@code fault} is null
     */
    public Builder withProbability(Fault fault, double p) {
      return withProbability(fault, p, 1);
    }

    /**
     * Starts a burst of {@code fault} with probability {@code p}: a hit injects it into this
     * request and the next {@code length - 1} requests the server receives (a {@code 503}
     * outage, a flapping link). A burst in progress counts as this fault's draw, so a
     * probabilistic fault added earlier still wins over it; a new burst starts only after the
     * current one ended.
     *
     * @throws IllegalArgumentException if {@code p} is not in [0, 1] or {@code length} not in
     *     [1, 1000]
     * @throws NullPointerException if {@code fault} is null
     */
    public Builder withProbability(Fault fault, double p, int length) {
      Objects.requireNonNull(fault, "fault");
      if (!(p >= 0.0 && p <= 1.0)) {
        throw new IllegalArgumentException(
            "probability of " + fault + " must be in [0, 1], was " + p);
      }
      if (length < 1 || length > 1000) {
        throw new IllegalArgumentException(
            "burst length of " + fault + " must be in [1, 1000], was " + length);
      }
      drawn.add(fault);
      probabilities.add(p);
      burstLengths.add(length);
      return this;
    }

    /** Seed of the probabilistic draws; default 0. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * How long a {@link Fault#stallAfterCommit()} holds the connection before the server closes
     * it without an answer (the request's thread waits; {@link IdempotentServer#close()} ends
     * the wait). Default: MockWebServer's own stall, until the server closes (at most 60
     * minutes).
     *
     * @throws IllegalArgumentException if negative
     * @throws NullPointerException if {@code d} is null
     */
    public Builder stallFor(Duration d) {
      Objects.requireNonNull(d, "stallFor");
      if (d.isNegative()) {
        throw new IllegalArgumentException("stallFor must not be negative, was " + d);
      }
      this.stallFor = d;
      return this;
    }

    /** Returns the immutable script. */
    public FaultScript build() {
      return new FaultScript(this);
    }

    private static void put(Map<Integer, Fault> map, int n, Fault fault, String setting) {
      Objects.requireNonNull(fault, "fault");
      if (n < 1) {
        throw new IllegalArgumentException(setting + " number must be >= 1, was " + n);
      }
      Fault earlier = map.putIfAbsent(n, fault);
      if (earlier != null) {
        throw new IllegalArgumentException(
            setting + "(" + n + ") already has " + earlier + "; cannot add " + fault);
      }
    }
  }
}
