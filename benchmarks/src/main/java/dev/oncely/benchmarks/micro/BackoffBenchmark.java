package dev.oncely.benchmarks.micro;

import dev.oncely.client.RetryPolicy;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** One full-jitter backoff (the 4th retry) with the client's default random source. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BackoffBenchmark {
  private final RetryPolicy policy = RetryPolicy.defaults();
  private final Random random = new Random(42);

  /** One wait. */
  @Benchmark
  public Duration fullJitter() {
    return policy.backoff(3, random);
  }
}
