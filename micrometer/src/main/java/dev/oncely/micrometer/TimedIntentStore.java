package dev.oncely.micrometer;

import dev.oncely.client.DuplicateIntentException;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.ForwardingIntentStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * An {@link IntentStore} that times every commit of the store it wraps: {@link #create} (the write
 * made before the first byte is sent) and {@link #compareAndSet} (every state change). Reads pass
 * through untimed. It changes no behaviour: results and exceptions are the delegate's.
 *
 * <p>Timer {@value #COMMIT} with tags {@code op} ({@code create} or {@code compare_and_set}) and
 * {@code result} ({@code ok}, {@code conflict} when a compare-and-set lost, {@code duplicate},
 * {@code error}), plus the common tags given here. Wrap the store before handing it to the client:
 * {@code IdempotentClient.builder().store(new TimedIntentStore(store, registry))}.
 *
 * <p>It times every store the same way; timing the in-memory store measures only a map update.
 */
public final class TimedIntentStore extends ForwardingIntentStore {
  /** Timer of store commits. */
  public static final String COMMIT = "oncely.store.commit";

  private final MeterRegistry registry;
  private final Tags common;

  /**
   * Times {@code delegate}'s commits into {@code registry}.
   *
   * @param delegate the store every call goes to
   * @param registry where the timer is registered
   * @throws NullPointerException if an argument is null
   */
  public TimedIntentStore(IntentStore delegate, MeterRegistry registry) {
    this(delegate, registry, Tags.empty());
  }

  /**
   * Times {@code delegate}'s commits into {@code registry}, adding {@code tags} (for example the
   * engine: {@code Tags.of("store", "sqlite")}).
   *
   * @param delegate the store every call goes to
   * @param registry where the timer is registered
   * @param tags added to the timer; never a key, scope value or business id
   * @throws NullPointerException if an argument is null
   */
  public TimedIntentStore(IntentStore delegate, MeterRegistry registry, Tags tags) {
    super(delegate);
    this.registry = Objects.requireNonNull(registry, "registry");
    this.common = Objects.requireNonNull(tags, "tags");
  }

  @Override
  public void create(IntentRecord record) {
    long start = System.nanoTime();
    String result = "error";
    try {
      super.create(record);
      result = "ok";
    } catch (DuplicateIntentException e) {
      result = "duplicate";
      throw e;
    } finally {
      record("create", result, start);
    }
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    long start = System.nanoTime();
    String result = "error";
    try {
      boolean stored = super.compareAndSet(expected, replacement);
      result = stored ? "ok" : "conflict";
      return stored;
    } finally {
      record("compare_and_set", result, start);
    }
  }

  private void record(String op, String result, long startNanos) {
    Timer.builder(COMMIT)
        .description("Latency of one durable store write")
        .tags(common)
        .tags("op", op, "result", result)
        .register(registry)
        .record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
  }
}
