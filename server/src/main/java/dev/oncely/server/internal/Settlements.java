package dev.oncely.server.internal;

import dev.oncely.client.IntentId;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Wakes the repeats of one key waiting in this process (an endpoint with an in-progress wait) when
 * this process changes that key's receipt. A waiter still re-reads the store on a short period:
 * another instance's change wakes no one here.
 */
public final class Settlements {
  private final ConcurrentHashMap<IntentId, Object> monitors = new ConcurrentHashMap<>();

  /** Wakes every waiter of {@code id}. */
  public void changed(IntentId id) {
    Object monitor = monitors.get(id);
    if (monitor != null) {
      synchronized (monitor) {
        monitor.notifyAll();
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
    Object monitor = monitors.computeIfAbsent(id, k -> new Object());
    synchronized (monitor) {
      TimeUnit.NANOSECONDS.timedWait(monitor, maxNanos);
    }
    // Left in the map: a monitor is a few bytes and removing it races with a new waiter; the map
    // is cleared of keys nobody waits on by forget().
  }

  /** Drops the monitor of {@code id} once its receipt is final. */
  public void forget(IntentId id) {
    monitors.remove(id);
  }
}
