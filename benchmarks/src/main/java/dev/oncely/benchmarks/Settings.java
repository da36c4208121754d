package dev.oncely.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How much work each scenario of one harness run does. Immutable. {@link #full()} is the published
 * suite (about 9 minutes on 2 quiet cores); {@link #smoke()} runs one short iteration of everything so the
 * build can check that the harness works without measuring anything.
 *
 * @param name a label printed in the results
 * @param reps repetitions of every A/B comparison (the min/median/max are over these)
 * @param concurrencies end-to-end concurrency levels
 * @param e2eWindow measured time of one end-to-end segment
 * @param e2eWarmup unmeasured time before each end-to-end segment (on its fresh store)
 * @param settleWindow length of one warm-up window while waiting for the JIT to settle
 * @param settleCap longest time one subject is warmed before it is measured anyway
 * @param jitQuiet most JIT work a window may see to count as settled, as a share of the client's
 *     CPU time in it (compiler threads' CPU where readable, else compile time); a measured window
 *     with more is refused and re-run
 * @param serverThreads handler threads of the minimal server of the end-to-end runs
 * @param commitWindow measured time of one commit-cost segment
 * @param commitConcurrency the high concurrency of the commit-cost comparison
 * @param resumeIntents unfinished records put in the store before it is reopened
 * @param scaleIntents finished records put in the store the scale scenario runs on
 * @param scaleWindow measured time of one segment of the scale comparison: long enough to hold a
 *     checkpoint of the filled store, so its longest wait includes one
 * @param heapRecords records put in the cache to weigh one
 * @param retryIntents intents per retry-efficiency run
 * @param retryConcurrency threads per retry-efficiency run
 * @param outageClients clients in the outage scenario
 * @param outage how long the server refuses connections
 * @param microIterations JMH measurement (and warm-up) iterations per benchmark
 * @param microIterationTime JMH iteration time
 * @param microForks JMH forks (0 runs in this JVM)
 */
public record Settings(
    String name,
    int reps,
    List<Integer> concurrencies,
    Duration e2eWindow,
    Duration e2eWarmup,
    Duration settleWindow,
    Duration settleCap,
    double jitQuiet,
    int serverThreads,
    Duration commitWindow,
    int commitConcurrency,
    int resumeIntents,
    int scaleIntents,
    Duration scaleWindow,
    int heapRecords,
    int retryIntents,
    int retryConcurrency,
    int outageClients,
    Duration outage,
    int microIterations,
    Duration microIterationTime,
    int microForks) {

  /** Checks every setting. */
  public Settings {
    Objects.requireNonNull(name, "name");
    concurrencies = List.copyOf(concurrencies);
    if (reps < 1) {
      throw new IllegalArgumentException("reps must be >= 1, was " + reps);
    }
    if (scaleIntents < 1) {
      throw new IllegalArgumentException("scaleIntents must be >= 1, was " + scaleIntents);
    }
    if (concurrencies.isEmpty() || concurrencies.stream().anyMatch(c -> c < 1)) {
      throw new IllegalArgumentException("concurrencies must be >= 1, were " + concurrencies);
    }
  }

  /** The published suite: 5 repetitions of everything. */
  public static Settings full() {
    return new Settings("full", 5, List.of(1, 64), Duration.ofMillis(3000),
        Duration.ofMillis(1000), Duration.ofMillis(2000), Duration.ofSeconds(90),
        0.02, 4, Duration.ofMillis(1000), 64, 100_000, 1_000_000, Duration.ofSeconds(10), 100_000, 1000, 16, 200,
        Duration.ofSeconds(5), 5, Duration.ofSeconds(1), 1);
  }

  /** One short iteration of every scenario, for the build's smoke test. */
  public static Settings smoke() {
    return new Settings("smoke", 1, List.of(1), Duration.ofMillis(100), Duration.ofMillis(20),
        Duration.ofMillis(100), Duration.ZERO, Double.MAX_VALUE, 2, Duration.ofMillis(50), 8,
        200, 300, Duration.ofMillis(100), 200, 20, 4, 8, Duration.ofMillis(100), 1, Duration.ofMillis(20), 0);
  }

  /** This settings with {@code resumeIntents} unfinished records in the resume scenario. */
  public Settings withResumeIntents(int resumeIntents) {
    if (resumeIntents < 1) {
      throw new IllegalArgumentException("resumeIntents must be >= 1, was " + resumeIntents);
    }
    return new Settings(name, reps, concurrencies, e2eWindow, e2eWarmup, settleWindow, settleCap,
        jitQuiet, serverThreads, commitWindow,
        commitConcurrency, resumeIntents, scaleIntents, scaleWindow, heapRecords, retryIntents, retryConcurrency,
        outageClients, outage, microIterations, microIterationTime, microForks);
  }

  /** This settings with {@code scaleIntents} finished records in the scale scenario. */
  public Settings withScaleIntents(int scaleIntents) {
    return new Settings(name, reps, concurrencies, e2eWindow, e2eWarmup, settleWindow, settleCap,
        jitQuiet, serverThreads, commitWindow,
        commitConcurrency, resumeIntents, scaleIntents, scaleWindow, heapRecords, retryIntents,
        retryConcurrency, outageClients, outage, microIterations, microIterationTime, microForks);
  }

  /** This settings with {@code jitQuiet} as the largest JIT share of a settled window. */
  public Settings withJitQuiet(double jitQuiet) {
    if (!(jitQuiet > 0)) {
      throw new IllegalArgumentException("jitQuiet must be > 0, was " + jitQuiet);
    }
    return new Settings(name, reps, concurrencies, e2eWindow, e2eWarmup, settleWindow, settleCap,
        jitQuiet, serverThreads, commitWindow,
        commitConcurrency, resumeIntents, scaleIntents, scaleWindow, heapRecords, retryIntents, retryConcurrency,
        outageClients, outage, microIterations, microIterationTime, microForks);
  }

  /** This settings with {@code reps} repetitions. */
  public Settings withReps(int reps) {
    return new Settings(name, reps, concurrencies, e2eWindow, e2eWarmup, settleWindow, settleCap,
        jitQuiet, serverThreads, commitWindow,
        commitConcurrency, resumeIntents, scaleIntents, scaleWindow, heapRecords, retryIntents, retryConcurrency,
        outageClients, outage, microIterations, microIterationTime, microForks);
  }
}
