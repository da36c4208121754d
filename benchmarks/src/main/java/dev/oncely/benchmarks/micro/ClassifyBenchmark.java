package dev.oncely.benchmarks.micro;

import dev.oncely.client.StoredResponse;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.dialect.Verdict;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** Classifying an answer: IETF 201 (status only) and Stripe 400 (reads the error body). */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ClassifyBenchmark {
  private final Dialect ietf = Dialects.ietf();
  private final Dialect stripe = Dialects.stripe();
  private final StoredResponse created = StoredResponse.of(201,
      Map.of("Content-Type", List.of("application/json"), "Location", List.of("/payments/p1")),
      "{\"id\":\"p1\",\"status\":\"created\"}".getBytes(StandardCharsets.UTF_8));
  private final StoredResponse mismatch = StoredResponse.of(400,
      Map.of("Content-Type", List.of("application/json")),
      ("{\"error\":{\"type\":\"idempotency_error\",\"code\":\"idempotency_key_reused\","
          + "\"message\":\"Keys for idempotent requests can only be used with the same"
          + " parameters they were first used with.\"}}").getBytes(StandardCharsets.UTF_8));

  /** IETF dialect, 201. */
  @Benchmark
  public Verdict ietfCreated() {
    return ietf.classify(created);
  }

  /** Stripe dialect, 400 with an idempotency_error body. */
  @Benchmark
  public Verdict stripeMismatch() {
    return stripe.classify(mismatch);
  }
}
