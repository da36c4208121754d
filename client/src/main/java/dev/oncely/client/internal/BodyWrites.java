package dev.oncely.client.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many times an intent's body was written toward the wire, by anyone: the engine's own
 * attempts, an app interceptor that re-ran the chain, a {@code Call.Factory} that re-issued the
 * call. A write the engine did not start itself is a delivery it did not count otherwise.
 * Thread-safe.
 */
public final class BodyWrites {
  private final AtomicInteger writes = new AtomicInteger();

  /** Counts one write that started. */
  void started() {
    writes.incrementAndGet();
  }

  /** Writes started so far. */
  public int count() {
    return writes.get();
  }
}
