package dev.oncely.client.internal.http;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many times an intent's request was written toward the wire, by anyone: the engine's own
 * attempts, OkHttp's silent resend, an app interceptor that re-ran the chain, a {@code
 * Call.Factory} that re-issued the call. A request with a body counts when its body starts to be
 * written; one without a body when the interceptor's network half hands it to a connection
 * ({@link NetworkHalf}). A write the engine did not start itself is a delivery it did not count
 * otherwise. Thread-safe.
 */
public final class WireWrites {
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
