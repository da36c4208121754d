package dev.oncely.client.testing;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.ForwardingIntentStore;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A store a test can wait on: every write (a create, a compare-and-set) wakes the threads waiting
 * in {@link #await}, so a test waits for a drive on another thread to reach a state without
 * sleeping and polling.
 */
public final class WatchedStore extends ForwardingIntentStore {
  private final Object written = new Object();

  /** Watches {@code underlying}. */
  public WatchedStore(IntentStore underlying) {
    super(underlying);
  }

  @Override
  public void create(IntentRecord record) {
    try {
      super.create(record);
    } finally {
      wake();
    }
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    try {
      return super.compareAndSet(expected, replacement);
    } finally {
      wake();
    }
  }

  private void wake() {
    synchronized (written) {
      written.notifyAll();
    }
  }

  /**
   * Waits until {@code read} (run after each write, under the watch's lock, so no write is missed)
   * gives a value, at most {@code timeout}.
   *
   * @return the value, or null if none came in time
   */
  public <T> T await(Supplier<T> read, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    synchronized (written) {
      T value = read.get();
      while (value == null) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          return null;
        }
        written.wait(Math.max(1, left / 1_000_000));
        value = read.get();
      }
      return value;
    }
  }
}
