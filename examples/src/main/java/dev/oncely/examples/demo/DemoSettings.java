package dev.oncely.examples.demo;

import dev.oncely.examples.SettingRules;
import dev.oncely.examples.server.FaultPlan;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Objects;
import java.util.Random;

/**
 * What one demo run does: how many payment intents, at what concurrency, against which faults, when
 * the SDK's child JVM is killed, and how that child is launched. Immutable and thread-safe.
 *
 * <p>Defaults: {@value #DEFAULT_INTENTS} intents at concurrency {@value
 * #DEFAULT_CONCURRENCY}, seed {@value #DEFAULT_SEED}, faults {@value #DEFAULT_FAULTS}, a share
 * {@value #DEFAULT_SLOW_SHARE} of payments answered {@code 202} and finished later, an attempt
 * timeout of {@value #DEFAULT_ATTEMPT_TIMEOUT_MS} ms, the child launched with this JVM's {@code
 * java} and class path. The kill point is drawn from the seed between 35 % and 45 % of the intents.
 */
public final class DemoSettings {
  /** Default number of payment intents. */
  public static final int DEFAULT_INTENTS = 1000;
  /** Default number of payment intents of the shop lane ({@code demo --shop}). */
  public static final int DEFAULT_SHOP_INTENTS = 300;
  /** Default number of intents in flight at once. */
  public static final int DEFAULT_CONCURRENCY = 32;
  /** Default seed of faults, slow payments and the kill point. */
  public static final long DEFAULT_SEED = 42;
  /** Default faults of the reference server, in its spec grammar (the seed is added). */
  public static final String DEFAULT_FAULTS =
      "drop=0.08,stall=0.02,stallfor=4s,refuse=0.04,burst503=0.01,burstlen=3,latency=1ms";
  /** Default share of payments the server answers with {@code 202} and creates later. */
  public static final double DEFAULT_SLOW_SHARE = 0.05;
  /** Default per-attempt timeout of both clients, in milliseconds (below the stall time). */
  public static final int DEFAULT_ATTEMPT_TIMEOUT_MS = 2000;

  private final int intents;
  private final int concurrency;
  private final long seed;
  private final FaultPlan faults;
  private final double slowShare;
  private final Duration attemptTimeout;
  private final int killAfter;
  private final Path javaCommand;
  private final String classPath;

  private DemoSettings(Builder b) {
    this.intents = b.intents;
    this.concurrency = b.concurrency;
    this.seed = b.seed;
    this.faults = b.faults != null ? b.faults : withSeed(DEFAULT_FAULTS, b.seed);
    this.slowShare = b.slowShare;
    this.attemptTimeout = b.attemptTimeout;
    this.killAfter = killPoint(b.intents, b.seed);
    this.javaCommand = b.javaCommand;
    this.classPath = b.classPath;
  }

  /** A builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Parses {@code spec} in the server's faults grammar, adding {@code seed} unless the spec names
   * its own.
   *
   * @throws dev.oncely.examples.server.FaultSpecException naming the bad item
   */
  public static FaultPlan withSeed(String spec, long seed) {
    boolean seeded = spec.toLowerCase(java.util.Locale.ROOT).matches("(?s)(.*,)?\\s*seed\\s*=.*");
    String trimmed = spec.trim();
    if (seeded) {
      return FaultPlan.parse(trimmed);
    }
    boolean empty = trimmed.isEmpty() || trimmed.equalsIgnoreCase("none");
    return FaultPlan.parse((empty ? "" : trimmed + ",") + "seed=" + seed);
  }

  private static int killPoint(int intents, long seed) {
    double share = 0.35 + 0.10 * new Random(seed).nextDouble();
    return Math.max(1, (int) Math.round(intents * share));
  }

  /** Payment intents per client. */
  public int intents() {
    return intents;
  }

  /** Intents in flight at once. */
  public int concurrency() {
    return concurrency;
  }

  /** The seed of faults, slow payments and the kill point. */
  public long seed() {
    return seed;
  }

  /** The faults both servers inject. */
  public FaultPlan faults() {
    return faults;
  }

  /** Share of payments answered {@code 202} and completed later. */
  public double slowShare() {
    return slowShare;
  }

  /** Per-attempt timeout of both clients. */
  public Duration attemptTimeout() {
    return attemptTimeout;
  }

  /** The SDK's child JVM is killed once the server has created this many payments. */
  public int killAfter() {
    return killAfter;
  }

  /** The {@code java} executable the child JVM is started with. */
  public Path javaCommand() {
    return javaCommand;
  }

  /** The class path of the child JVM (the shaded jar, or the test class path). */
  public String classPath() {
    return classPath;
  }

  @Override
  public String toString() {
    return "DemoSettings{intents=" + intents + ", concurrency=" + concurrency + ", seed=" + seed
        + ", faults=" + faults.toSpec() + ", slowShare=" + slowShare + ", attemptTimeout="
        + attemptTimeout.toMillis() + "ms, killAfter=" + killAfter + "}";
  }

  /** Builds {@link DemoSettings}. Not thread-safe; each setter checks its value and names it. */
  public static final class Builder {
    private int intents = DEFAULT_INTENTS;
    private int concurrency = DEFAULT_CONCURRENCY;
    private long seed = DEFAULT_SEED;
    private FaultPlan faults;
    private double slowShare = DEFAULT_SLOW_SHARE;
    private Duration attemptTimeout = Duration.ofMillis(DEFAULT_ATTEMPT_TIMEOUT_MS);
    private Path javaCommand = Paths.get(System.getProperty("java.home"), "bin", "java");
    private String classPath = System.getProperty("java.class.path");

    private Builder() {}

    /** @throws IllegalArgumentException if {@code n} is not in [1, 1,000,000] */
    public Builder intents(int n) {
      this.intents = SettingRules.inRange("intents", n, 1, 1_000_000);
      return this;
    }

    /** @throws IllegalArgumentException if {@code n} is not in [1, 1024] */
    public Builder concurrency(int n) {
      this.concurrency = SettingRules.inRange("concurrency", n, 1, 1024);
      return this;
    }

    /** Any value; the same seed repeats the same faults for the same arrival order. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Sets the faults (default {@link #DEFAULT_FAULTS} with the seed).
     *
     * @throws NullPointerException if {@code faults} is null
     */
    public Builder faults(FaultPlan faults) {
      this.faults = Objects.requireNonNull(faults, "faults");
      return this;
    }

    /** @throws IllegalArgumentException if {@code share} is not in [0, 1] */
    public Builder slowShare(double share) {
      this.slowShare = SettingRules.share("slowShare", share);
      return this;
    }

    /**
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if {@code timeout} is not in [10 ms, 60 s]
     */
    public Builder attemptTimeout(Duration timeout) {
      this.attemptTimeout = SettingRules.inRange("attemptTimeout", timeout, Duration.ofMillis(10),
          Duration.ofSeconds(60));
      return this;
    }

    /** @throws NullPointerException if {@code java} is null */
    public Builder javaCommand(Path java) {
      this.javaCommand = Objects.requireNonNull(java, "javaCommand");
      return this;
    }

    /** @throws IllegalArgumentException if {@code classPath} is null or blank */
    public Builder classPath(String classPath) {
      this.classPath = SettingRules.notBlank("classPath", classPath);
      return this;
    }

    /** Returns the settings. */
    public DemoSettings build() {
      return new DemoSettings(this);
    }
  }
}
