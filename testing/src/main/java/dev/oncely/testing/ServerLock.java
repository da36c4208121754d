package dev.oncely.testing;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one lock over an {@link IdempotentServer}'s key records and operations, and the waits held
 * under it. One lock, not one per part: reserving a key, committing its effect and opening its
 * operation must look like one step to a concurrent repeat of the key.
 *
 * <p>Reentrant. {@link #close()} wakes every wait for good, so a closed server holds no request.
 */
final class ServerLock {
  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled when a repeat is told "in progress": what a held late original waits for. */
  private final Condition inProgressTold = lock.newCondition();
  /** Signalled only by {@link #close()}: what a stalled request waits for. */
  private final Condition closing = lock.newCondition();
  private boolean closed;

  void lock() {
    lock.lock();
  }

  void unlock() {
    lock.unlock();
  }

  /** Whether the server was closed. The caller holds the lock. */
  boolean closed() {
    return closed;
  }

  /** Wakes held late originals to look at their record again. The caller holds the lock. */
  void signalInProgressTold() {
    inProgressTold.signalAll();
  }

  /**
   * Waits at most {@code nanos} for {@link #signalInProgressTold()} or {@link #close()}; may wake
   * early, so the caller checks its condition again. The caller holds the lock.
   */
  void awaitInProgressTold(long nanos) throws InterruptedException {
    inProgressTold.await(nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Waits at most {@code nanos} for {@link #close()}; may wake early, so the caller checks {@link
   * #closed()} again. The caller holds the lock.
   */
  void awaitClose(long nanos) throws InterruptedException {
    closing.await(nanos, TimeUnit.NANOSECONDS);
  }

  /** Marks the server closed and wakes every wait. */
  void close() {
    lock.lock();
    try {
      closed = true;
      inProgressTold.signalAll();
      closing.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
