package dev.oncely.client.internal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * One call at a time per intent within one interceptor: a call waits while another call of the
 * same intent (same business id, or same key) is running, then finds that call's record and
 * answers from it. Without it, two concurrent calls of one business id could both miss the
 * record and mint two keys; the store refuses the second, but the app would see an error instead
 * of the first call's answer. Entries live only while some call holds or waits for them.
 */
public final class Flights {
  private static final long SLICE_MILLIS = 100;

  private final ConcurrentHashMap<String, Flight> flights = new ConcurrentHashMap<>();

  /** A held flight; {@link #close()} lets the next waiting call in. */
  public interface Held extends AutoCloseable {
    @Override
    void close();
  }

  private static final class Flight {
    final ReentrantLock lock = new ReentrantLock();
    int users;
  }

  private static final Held NONE = () -> { };

  /**
   * Waits until no other call holds {@code name}, then holds it. A null name (a call with a key of
   * its own, minted fresh) holds nothing.
   *
   * @throws IOException "Canceled" if {@code canceled} turns true while waiting
   * @throws InterruptedIOException if the thread is interrupted while waiting
   */
  public Held enter(String name, BooleanSupplier canceled) throws IOException {
    if (name == null) {
      return NONE;
    }
    Flight flight = flights.compute(name, (k, f) -> {
      Flight joined = f != null ? f : new Flight();
      joined.users++;
      return joined;
    });
    boolean held = false;
    try {
      while (!(held = flight.lock.tryLock(SLICE_MILLIS, TimeUnit.MILLISECONDS))) {
        if (canceled.getAsBoolean()) {
          throw new IOException("Canceled");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while another call of this intent ran");
    } finally {
      if (!held) {
        leave(name);
      }
    }
    return () -> {
      flight.lock.unlock();
      leave(name);
    };
  }

  private void leave(String name) {
    flights.computeIfPresent(name, (k, f) -> --f.users == 0 ? null : f);
  }
}
