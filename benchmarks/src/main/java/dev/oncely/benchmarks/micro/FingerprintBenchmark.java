package dev.oncely.benchmarks.micro;

import dev.oncely.benchmarks.internal.Payloads;
import dev.oncely.payload.Fingerprints;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** Fingerprinting a JSON body (oncely-payload's rule): parse, sort keys, re-write, SHA-256. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FingerprintBenchmark {
  /** Body size in bytes. */
  @Param({"1024", "65536"})
  public int size;

  private byte[] json;

  /** Builds the body once. */
  @Setup
  public void setUp() {
    json = Payloads.jsonOfSize(size);
  }

  /** One fingerprint. */
  @Benchmark
  public String fingerprintJson() {
    return Fingerprints.ofPayload(json, "application/json", List.of());
  }
}
