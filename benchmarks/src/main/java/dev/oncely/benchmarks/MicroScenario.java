package dev.oncely.benchmarks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The JMH benchmarks in {@code dev.oncely.benchmarks.micro} with the GC profiler:
 * ns/op and bytes allocated per op, one sample per measurement iteration.
 */
final class MicroScenario {
  static final String SECTION = "micro";

  private final Settings settings;
  private final Results results;

  MicroScenario(Settings settings, Results results) {
    this.settings = settings;
    this.results = results;
  }

  void run() {
    long ms = settings.microIterationTime().toMillis();
    Options options = new OptionsBuilder()
        .include("dev\\.oncely\\.benchmarks\\.micro\\..*")
        .forks(settings.microForks())
        .warmupIterations(settings.microIterations() > 1 ? 2 : 0)
        .warmupTime(TimeValue.milliseconds(ms))
        .measurementIterations(settings.microIterations())
        .measurementTime(TimeValue.milliseconds(ms))
        .addProfiler(GCProfiler.class)
        .verbosity(settings.microForks() == 0 ? VerboseMode.SILENT : VerboseMode.NORMAL)
        .shouldFailOnError(true)
        .build();
    Collection<RunResult> runs;
    try {
      runs = new Runner(options).run();
    } catch (RunnerException e) {
      throw new IllegalStateException("JMH failed", e);
    }
    for (RunResult run : runs) {
      String name = run.getParams().getBenchmark().replaceFirst(".*\\.micro\\.", "");
      for (String param : run.getParams().getParamsKeys()) {
        name += " " + param + "=" + run.getParams().getParam(param);
      }
      List<Double> time = new ArrayList<>();
      List<Double> alloc = new ArrayList<>();
      for (BenchmarkResult b : run.getBenchmarkResults()) {
        for (IterationResult it : b.getIterationResults()) {
          time.add(it.getPrimaryResult().getScore());
          Double bytes = allocNorm(it.getSecondaryResults());
          if (bytes != null) {
            alloc.add(bytes);
          }
        }
      }
      results.add(SECTION, name, "ns/op", time, null);
      results.add(SECTION, name + " allocation", "B/op", alloc, null);
    }
    results.note(SECTION, "JMH 1.37, AverageTime, " + settings.microForks() + " fork(s), "
        + settings.microIterations() + " measured iterations of " + ms + " ms after warm-up,"
        + " -prof gc (allocation = gc.alloc.rate.norm). Samples are iterations. Run more with:"
        + " java -cp benchmarks/target/oncely-benchmarks.jar org.openjdk.jmh.Main -prof gc.");
  }

  private static Double allocNorm(Map<String, Result> secondary) {
    for (Map.Entry<String, Result> e : secondary.entrySet()) {
      if (e.getKey().endsWith("gc.alloc.rate.norm")) {
        return e.getValue().getScore();
      }
    }
    return null;
  }
}
