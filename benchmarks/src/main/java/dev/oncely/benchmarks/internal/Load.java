package dev.oncely.benchmarks.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one operation from {@code threads} threads for a fixed time and counts what finished. Threads
 * start together; each loops until the window closes, so the rate is operations finished inside the
 * window divided by its length.
 */
public final class Load {
  /** One unit of work; {@code seq} is unique per call within a run. Returns false for a failure. */
  @FunctionalInterface
  public interface Op {
    boolean run(long seq) throws Exception;
  }

  /**
   * What a run did.
   *
   * @param ok operations that succeeded
   * @param failed operations that returned false or threw
   * @param seconds the measured window
   * @param latencies nanoseconds of each successful operation (only if asked for)
   * @param firstError the first exception thrown, or null
   */
  public record Result(long ok, long failed, double seconds, long[] latencies, Throwable firstError) {
    /** Successful operations per second. */
    public double rate() {
      return ok / seconds;
    }
  }

  private Load() {}

  /** Runs {@code op} from {@code threads} threads for {@code window}. */
  public static Result run(Op op, int threads, Duration window, boolean recordLatency) {
    AtomicLong seq = new AtomicLong();
    AtomicLong ok = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicReference<Throwable> firstError = new AtomicReference<>();
    List<long[]> lat = new ArrayList<>();
    int[] counts = new int[threads];
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    long[] window0 = new long[2];
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      long[] mine = new long[recordLatency ? 1 << 16 : 0];
      lat.add(mine);
      int index = t;
      Thread worker = new Thread(() -> {
        ready.countDown();
        try {
          go.await();
        } catch (InterruptedException e) {
          return;
        }
        long end = window0[1];
        long[] l = mine;
        int n = 0;
        while (true) {
          long s = System.nanoTime();
          if (s >= end) {
            break;
          }
          boolean success;
          try {
            success = op.run(seq.getAndIncrement());
          } catch (Exception e) {
            firstError.compareAndSet(null, e);
            success = false;
          }
          long e = System.nanoTime();
          if (e > end) {
            break;
          }
          if (success) {
            ok.incrementAndGet();
            if (recordLatency) {
              if (n == l.length) {
                l = Arrays.copyOf(l, l.length * 2);
                lat.set(index, l);
              }
              l[n++] = e - s;
            }
          } else {
            failed.incrementAndGet();
          }
        }
        counts[index] = n;
      }, "bench-load-" + t);
      worker.setDaemon(true);
      workers.add(worker);
      worker.start();
    }
    try {
      ready.await();
      window0[0] = System.nanoTime();
      window0[1] = window0[0] + window.toNanos();
      go.countDown();
      for (Thread w : workers) {
        w.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while measuring", e);
    }
    long[] all = new long[0];
    if (recordLatency) {
      int total = Arrays.stream(counts).sum();
      all = new long[total];
      int at = 0;
      for (int t = 0; t < threads; t++) {
        System.arraycopy(lat.get(t), 0, all, at, counts[t]);
        at += counts[t];
      }
    }
    return new Result(ok.get(), failed.get(), window.toNanos() / 1e9, all, firstError.get());
  }
}
