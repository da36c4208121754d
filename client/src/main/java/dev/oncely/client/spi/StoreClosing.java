package dev.oncely.client.spi;

import dev.oncely.client.StoreException;
import org.jspecify.annotations.Nullable;

/**
 * The open/closed state of a store and its close sequence, the same in every engine: once
 * {@link #close} starts, every call is refused with the same message; the sequence runs once, each
 * step even when an earlier one failed (a lock is released although a connection would not
 * close); and all failures reach the caller as one {@link StoreException}, the later ones
 * suppressed. Thread-safe.
 */
public final class StoreClosing {
  private final String store;
  private volatile boolean closed;

  /** The state of the store named {@code store} in messages; open. */
  public StoreClosing(String store) {
    this.store = store;
  }

  /** One step of a close sequence. */
  @FunctionalInterface
  public interface Step {
    /** Releases one resource. */
    void run() throws Exception;
  }

  /** Whether {@link #close} has been called. */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Refuses a call on a closed store.
   *
   * @throws StoreException naming the store if it is closed
   */
  public void checkOpen() {
    if (closed) {
      throw closedFailure(null);
    }
  }

  /** The refusal of a call on a closed store, caused by {@code cause} (may be null). */
  public StoreException closedFailure(@Nullable Throwable cause) {
    return new StoreException(store + " is closed", cause);
  }

  /**
   * Marks the store closed and runs {@code steps} in order, each even when an earlier one failed.
   * Only the first call runs them; later calls return at once.
   *
   * @throws StoreException naming the store if a step failed, the first failure as its cause and
   *     the others suppressed; every step has run
   */
  public void close(Step... steps) {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    StoreException failure = null;
    for (Step step : steps) {
      try {
        step.run();
      } catch (Exception e) {
        if (failure == null) {
          failure = new StoreException(store + ": closing the store failed: " + e, e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
