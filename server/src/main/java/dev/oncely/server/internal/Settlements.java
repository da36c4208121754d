package dev.oncely.server.internal;

import dev.oncely.client.IntentId;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Wakes the repeats of one key waiting in this process (an endpoint with an in-progress wait) when
 * this process changes that key's receipt. A waiter still re-reads the store on a short period:
 * another instance's change wakes no one here, and a change that lands between a waiter's read
 * and its wait is seen at the next read. A key is in the map only while someone waits on it.
 */
public final class Settlements {
  private final ConcurrentHashMap<IntentId, Waiters> waiting = new ConcurrentHashMap<>();

  /** The waiters of one key: a monitor and how many threads wait on it. */
  private static final class Waiters {
    int count;
  }

  /** Wakes every waiter of {@code id}. */
  public void changed(IntentId id) {
    Waiters w = waiting.get(id);
    if (w != null) {
      synchronized (w) {
        w.notifyAll();
      }
    }
  }

  /**
   * Waits until {@link #changed} for {@code id} or {@code maxNanos} passed.
   *
   * @throws InterruptedException if the thread is interrupted
   */
  public void await(IntentId id, long maxNanos) throws InterruptedException {
    if (maxNanos <= 0) {
      return;
    }
    Waiters w = waiting.compute(id, (k, existing) -> {
      Waiters joined = existing != null ? existing : new Waiters();
      joined.count++;
      return joined;
    });
    try {
      synchronized (w) {
        TimeUnit.NANOSECONDS.timedWait(w, maxNanos);
      }
    } finally {
      waiting.computeIfPresent(id, (k, existing) -> --existing.count == 0 ? null : existing);
    }
  }
}
