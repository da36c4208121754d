package dev.oncely.benchmarks.internal;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/** Fills a store with records on several threads, so group commit makes filling fast. */
public final class ParallelFill {
  private ParallelFill() {}

  /**
   * Creates records {@code 0..n-1} ({@code record} makes each) in the store {@code engine} opens
   * at {@code dir}, on {@code threads} threads, until all are made or {@code budget} passed.
   *
   * @return how many were made
   * @throws IllegalStateException if a create failed or the filling thread was interrupted
   */
  public static int fill(Engine engine, Path dir, int n, int threads, Duration budget,
      IntFunction<IntentRecord> record) {
    long deadline = System.nanoTime() + budget.toNanos();
    AtomicInteger next = new AtomicInteger();
    AtomicInteger made = new AtomicInteger();
    AtomicReference<Throwable> error = new AtomicReference<>();
    try (IntentStore store = engine.open(dir)) {
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Thread worker = new Thread(() -> {
          int i;
          while (error.get() == null && System.nanoTime() < deadline
              && (i = next.getAndIncrement()) < n) {
            try {
              store.create(record.apply(i));
              made.incrementAndGet();
            } catch (RuntimeException e) {
              error.compareAndSet(null, e);
            }
          }
        }, "bench-fill-" + t);
        worker.start();
        workers.add(worker);
      }
      for (Thread t : workers) {
        t.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while filling", e);
    }
    if (error.get() != null) {
      throw new IllegalStateException("filling " + engine.label() + " failed", error.get());
    }
    return made.get();
  }
}
