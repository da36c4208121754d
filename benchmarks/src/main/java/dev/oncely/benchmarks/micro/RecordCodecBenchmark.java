package dev.oncely.benchmarks.micro;

import dev.oncely.benchmarks.internal.Records;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.spi.RecordCodec;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The durable stores' per-record CPU cost: encoding a record and decoding it (checksum and field
 * checks), which bounds how fast a store can list 100,000 unfinished intents on resume.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RecordCodecBenchmark {
  private final RecordCodec codec = new RecordCodec();
  private final IntentRecord record = Records.fresh(42);
  private final byte[] bytes = codec.encode(record);

  /** One record to bytes. */
  @Benchmark
  public byte[] encode() {
    return codec.encode(record);
  }

  /** One record from bytes. */
  @Benchmark
  public IntentRecord decode() {
    return codec.decode(bytes, "bench");
  }

  /** The SHA-256 lookup key SQLite and MapDB index a record under. */
  @Benchmark
  public byte[] lookupKey() {
    return RecordCodec.lookupKey(record.id());
  }
}
