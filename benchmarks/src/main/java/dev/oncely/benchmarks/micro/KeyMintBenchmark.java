package dev.oncely.benchmarks.micro;

import dev.oncely.client.IntentSpec;
import dev.oncely.client.KeyStrategy;
import dev.oncely.client.internal.Keys;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Minting an idempotency key: 192 random bits from {@code SecureRandom} as base64, and the
 * HMAC-derived key (measured through an {@link IntentSpec} build with a tiny non-JSON body, since
 * derivation runs only there).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class KeyMintBenchmark {
  private final KeyStrategy derived =
      KeyStrategy.derived("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8));
  private final byte[] body = {1};

  /** One random key. */
  @Benchmark
  public String randomKey() {
    return Keys.random();
  }

  /** One spec with a derived key (HMAC-SHA256) and a 1-byte binary body. */
  @Benchmark
  public IntentSpec derivedKeySpec() {
    return IntentSpec.builder().operation("create-payment").scope("bench")
        .post("http://127.0.0.1/payments").body(body, "application/octet-stream")
        .businessId("order-42").keyStrategy(derived).build();
  }
}
