package dev.oncely.benchmarks.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

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
   * @param latencies nanoseconds of each successful operation (empty unless asked for)
   * @param firstError the first exception thrown, or null
   * @param cost what the window cost the client, or null when no meter was given
   */
  public record Result(long ok, long failed, double seconds, Histogram latencies,
      Throwable firstError, CostMeter.Cost cost) {
    /** Successful operations per second. */
    public double rate() {
      return ok / seconds;
    }
  }

  /** HdrHistogram precision: values kept to 3 significant digits (0.1 % error). */
  public static final int SIGNIFICANT_DIGITS = 3;

  private Load() {}

  /** Runs {@code op} from {@code threads} threads for {@code window}. */
  public static Result run(Op op, int threads, Duration window, boolean recordLatency) {
    return run(op, threads, window, recordLatency, null);
  }

  /**
   * Runs {@code op} from {@code threads} threads for {@code window}, and when {@code meter} is not
   * null measures the window with it: started just before the threads go, stopped once every
   * thread has left its loop but before any has ended.
   */
  public static Result run(Op op, int threads, Duration window, boolean recordLatency,
      CostMeter meter) {
    AtomicLong seq = new AtomicLong();
    AtomicLong ok = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicReference<Throwable> firstError = new AtomicReference<>();
    List<Histogram> lat = new ArrayList<>();
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(threads);
    CountDownLatch release = new CountDownLatch(1);
    long[] window0 = new long[2];
    List<Thread> workers = new ArrayList<>();
    CostMeter.Cost cost;
    for (int t = 0; t < threads; t++) {
      Histogram mine = new Histogram(SIGNIFICANT_DIGITS);
      lat.add(mine);
      Thread worker = new Thread(() -> {
        ready.countDown();
        try {
          go.await();
        } catch (InterruptedException e) {
          return;
        }
        long end = window0[1];
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
              mine.recordValue(e - s);
            }
          } else {
            failed.incrementAndGet();
          }
        }
        done.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "bench-load-" + t);
      worker.setDaemon(true);
      workers.add(worker);
      worker.start();
    }
    try {
      ready.await();
      window0[0] = System.nanoTime();
      window0[1] = window0[0] + window.toNanos();
      if (meter != null) {
        meter.start();
      }
      go.countDown();
      done.await();
      cost = meter == null ? null : meter.stop();
      release.countDown();
      for (Thread w : workers) {
        w.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while measuring", e);
    }
    Histogram all = new Histogram(SIGNIFICANT_DIGITS);
    for (Histogram h : lat) {
      all.add(h);
    }
    return new Result(ok.get(), failed.get(), window.toNanos() / 1e9, all, firstError.get(),
        cost);
  }
}
