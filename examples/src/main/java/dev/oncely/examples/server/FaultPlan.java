package dev.oncely.examples.server;

import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import java.time.Duration;
import java.util.HashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Which faults a {@link ReferenceServer} injects, how often, and the seed that makes the choices
 * repeatable: the demo's spec grammar for a testing-kit {@link FaultScript} ({@link #toScript()}).
 * Immutable and thread-safe.
 *
 * <p>Every payments request draws, in this order: refuse ({@link Fault#refuse()}), start of a 503
 * burst ({@link Fault#answer(int) Fault.answer(503)} for {@code burstlen} requests), drop ({@link
 * Fault#dropAfterCommit()}), stall ({@link Fault#stallAfterCommit()}). A refused request gets no
 * other fault; a 503 gets no drop or stall; drop wins over stall. Drop and stall act after the
 * outcome was committed (on a poll they lose its answer). With one client thread the same seed
 * gives the same faults on the same requests; with concurrent clients the draws interleave in
 * arrival order. Latency is not a kit fault: the server's routing waits before the kit.
 *
 * <h2>Spec grammar</h2>
 *
 * <pre>
 * spec        = "" | "none" | item *( "," item )
 * item        = name "=" value               (blanks around items and "=" are ignored)
 * drop        = probability   close the connection after commit, no answer     (default 0)
 * stall       = probability   hold the answer for stallfor after commit, close (default 0)
 * refuse      = probability   close the connection before handling the request (default 0)
 * burst503    = probability   chance that a request starts a 503 burst         (default 0)
 * burstlen    = integer 1..1000  requests answered 503 per burst               (default 3)
 * latency     = duration      added before every /payments request             (default 0ms)
 * stallfor    = duration      how long a stall holds the connection            (default 30s)
 * seed        = long          seeds fault and slow-operation choices           (default 0)
 * probability = decimal in [0, 1]
 * duration    = digits ("ms" | "s"), at most 10 minutes
 * </pre>
 *
 * Example: {@code drop=0.2,stall=0.05,refuse=0.05,latency=5ms,burst503=0.02,seed=42}. Names are
 * case-insensitive; each may appear once.
 */
public final class FaultPlan {
  /** Default number of consecutive {@code 503} answers in one burst. */
  public static final int DEFAULT_BURST_LENGTH = 3;
  /** Default time a stalled response is held before the connection is closed. */
  public static final Duration DEFAULT_STALL_FOR = Duration.ofSeconds(30);
  /** Longest accepted latency or stall duration. */
  public static final Duration MAX_DURATION = Duration.ofMinutes(10);

  private static final FaultPlan NONE = builder().build();

  private final double drop;
  private final double stall;
  private final double refuse;
  private final double burst503;
  private final int burstLength;
  private final Duration latency;
  private final Duration stallFor;
  private final long seed;

  private FaultPlan(Builder b) {
    this.drop = b.drop;
    this.stall = b.stall;
    this.refuse = b.refuse;
    this.burst503 = b.burst503;
    this.burstLength = b.burstLength;
    this.latency = b.latency;
    this.stallFor = b.stallFor;
    this.seed = b.seed;
  }

  /** A plan that injects nothing, with seed 0. */
  public static FaultPlan none() {
    return NONE;
  }

  /** A builder starting from {@link #none()}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Parses a spec in the grammar of the class documentation.
   *
   * @throws NullPointerException if {@code spec} is null
   * @throws FaultSpecException naming the first item that is unknown, repeated, lacks {@code =},
   *     or has a value out of range
   */
  public static FaultPlan parse(String spec) {
    Objects.requireNonNull(spec, "spec");
    String trimmed = spec.trim();
    Builder b = builder();
    if (trimmed.isEmpty() || trimmed.equalsIgnoreCase("none")) {
      return b.build();
    }
    Set<String> seen = new HashSet<>();
    for (String raw : trimmed.split(",", -1)) {
      String item = raw.trim();
      int eq = item.indexOf('=');
      if (eq < 0) {
        throw new FaultSpecException(item, "expected name=value");
      }
      String name = item.substring(0, eq).trim().toLowerCase(Locale.ROOT);
      String value = item.substring(eq + 1).trim();
      if (!seen.add(name)) {
        throw new FaultSpecException(item, "'" + name + "' is given more than once");
      }
      try {
        apply(b, name, value);
      } catch (IllegalArgumentException e) {
        throw new FaultSpecException(item, e.getMessage());
      }
    }
    return b.build();
  }

  private static void apply(Builder b, String name, String value) {
    switch (name) {
      case "drop" -> b.drop(probability(value));
      case "stall" -> b.stall(probability(value));
      case "refuse" -> b.refuse(probability(value));
      case "burst503" -> b.burst503(probability(value));
      case "burstlen" -> b.burstLength(integer(value));
      case "latency" -> b.latency(parseDuration(value));
      case "stallfor" -> b.stallFor(parseDuration(value));
      case "seed" -> b.seed(longValue(value));
      default -> throw new IllegalArgumentException(
          "unknown fault '" + name
              + "'; known: drop, stall, refuse, burst503, burstlen, latency, stallfor, seed");
    }
  }

  private static double probability(String value) {
    try {
      return Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + value + "' is not a probability in [0, 1]");
    }
  }

  private static int integer(String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + value + "' is not an integer");
    }
  }

  private static long longValue(String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + value + "' is not a long integer");
    }
  }

  /**
   * Parses a duration of the spec grammar: {@code 250ms}, {@code 2s} or a bare {@code 0}.
   *
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException naming the value if it has another form
   */
  public static Duration parseDuration(String value) {
    String v = value.toLowerCase(Locale.ROOT);
    if (v.equals("0")) {
      return Duration.ZERO;
    }
    try {
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      }
      if (v.endsWith("s")) {
        return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
      }
    } catch (NumberFormatException e) {
      // falls through to the error below, which names the whole value
    }
    throw new IllegalArgumentException(
        "'" + value + "' is not a duration; use digits followed by ms or s, e.g. 5ms or 2s");
  }

  /** Probability of {@link FaultKind#DROP} on a payments request. */
  public double drop() {
    return drop;
  }

  /** Probability of {@link FaultKind#STALL} on a payments request. */
  public double stall() {
    return stall;
  }

  /** Probability of {@link FaultKind#REFUSE} on a {@code /payments} request. */
  public double refuse() {
    return refuse;
  }

  /** Probability that a {@code /payments} request starts a {@link FaultKind#BURST_503}. */
  public double burst503() {
    return burst503;
  }

  /** Number of consecutive {@code /payments} requests answered 503 in one burst. */
  public int burstLength() {
    return burstLength;
  }

  /** Latency added before every {@code /payments} request; zero for none. */
  public Duration latency() {
    return latency;
  }

  /** How long a stalled response holds the connection before closing it. */
  public Duration stallFor() {
    return stallFor;
  }

  /** Seed for the fault and slow-operation choices. */
  public long seed() {
    return seed;
  }

  /**
   * The testing-kit script of this plan, its draws starting from the seed: refuse, a 503 burst,
   * drop and stall as probabilistic faults in that order, stalls held for {@link #stallFor()}.
   */
  public FaultScript toScript() {
    return FaultScript.builder()
        .withProbability(Fault.refuse(), refuse)
        .withProbability(Fault.answer(503), burst503, burstLength)
        .withProbability(Fault.dropAfterCommit(), drop)
        .withProbability(Fault.stallAfterCommit(), stall)
        .stallFor(stallFor)
        .seed(seed)
        .build();
  }

  /** The plan's name for a fault its script injects, or null for a fault it never injects. */
  static FaultKind kindOf(Fault fault) {
    return switch (fault.kind()) {
      case REFUSE -> FaultKind.REFUSE;
      case ANSWER_BEFORE_HANDLING -> FaultKind.BURST_503;
      case DROP_AFTER_COMMIT -> FaultKind.DROP;
      case STALL_AFTER_COMMIT -> FaultKind.STALL;
      default -> null;
    };
  }

  /** This plan in the spec grammar; {@code parse(toSpec())} gives an equal plan. */
  public String toSpec() {
    return "drop=" + drop + ",stall=" + stall + ",refuse=" + refuse + ",burst503=" + burst503
        + ",burstlen=" + burstLength + ",latency=" + latency.toMillis() + "ms"
        + ",stallfor=" + stallFor.toMillis() + "ms,seed=" + seed;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FaultPlan p
        && drop == p.drop && stall == p.stall && refuse == p.refuse && burst503 == p.burst503
        && burstLength == p.burstLength && latency.equals(p.latency)
        && stallFor.equals(p.stallFor) && seed == p.seed;
  }

  @Override
  public int hashCode() {
    return Objects.hash(drop, stall, refuse, burst503, burstLength, latency, stallFor, seed);
  }

  @Override
  public String toString() {
    return "FaultPlan[" + toSpec() + "]";
  }

  /**
   * Mutable, not thread-safe builder of {@link FaultPlan}. Each setter validates its value and
   * names the setting and the value when it refuses it.
   */
  public static final class Builder {
    private double drop;
    private double stall;
    private double refuse;
    private double burst503;
    private int burstLength = DEFAULT_BURST_LENGTH;
    private Duration latency = Duration.ZERO;
    private Duration stallFor = DEFAULT_STALL_FOR;
    private long seed;

    private Builder() {}

    /** @throws IllegalArgumentException if {@code p} is not in [0, 1] */
    public Builder drop(double p) {
      this.drop = checkProbability("drop", p);
      return this;
    }

    /** @throws IllegalArgumentException if {@code p} is not in [0, 1] */
    public Builder stall(double p) {
      this.stall = checkProbability("stall", p);
      return this;
    }

    /** @throws IllegalArgumentException if {@code p} is not in [0, 1] */
    public Builder refuse(double p) {
      this.refuse = checkProbability("refuse", p);
      return this;
    }

    /** @throws IllegalArgumentException if {@code p} is not in [0, 1] */
    public Builder burst503(double p) {
      this.burst503 = checkProbability("burst503", p);
      return this;
    }

    /** @throws IllegalArgumentException if {@code n} is not in [1, 1000] */
    public Builder burstLength(int n) {
      if (n < 1 || n > 1000) {
        throw new IllegalArgumentException("burstlen must be in [1, 1000], was " + n);
      }
      this.burstLength = n;
      return this;
    }

    /**
     * @throws NullPointerException if {@code d} is null
     * @throws IllegalArgumentException if {@code d} is negative or above {@link #MAX_DURATION}
     */
    public Builder latency(Duration d) {
      this.latency = checkDuration("latency", d);
      return this;
    }

    /**
     * @throws NullPointerException if {@code d} is null
     * @throws IllegalArgumentException if {@code d} is negative or above {@link #MAX_DURATION}
     */
    public Builder stallFor(Duration d) {
      this.stallFor = checkDuration("stallfor", d);
      return this;
    }

    /** Any value; the same seed repeats the same choices for a sequential client. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Returns the immutable plan. */
    public FaultPlan build() {
      return new FaultPlan(this);
    }

    private static double checkProbability(String name, double p) {
      if (!(p >= 0.0 && p <= 1.0)) {
        throw new IllegalArgumentException(name + " must be a probability in [0, 1], was " + p);
      }
      return p;
    }

    private static Duration checkDuration(String name, Duration d) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.compareTo(MAX_DURATION) > 0) {
        throw new IllegalArgumentException(
            name + " must be between 0 and " + MAX_DURATION.toMinutes() + " minutes, was " + d);
      }
      return d;
    }
  }
}
