package dev.oncely.benchmarks.internal;

import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.inbox.InboxHandler;
import dev.oncely.server.inbox.InboxListener;
import dev.oncely.server.inbox.InboxMessage;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The webhook scenario's handler and inbox listener in one: the handler notes each message it
 * runs (the whole of its business effect), the listener counts messages accepted and handled, and
 * {@link #awaitHandled} waits, on a monitor the listener signals, until the workers have caught
 * up. Thread-safe.
 */
public final class InboxTally implements InboxHandler, InboxListener {
  private final Map<String, Integer> runsById = new ConcurrentHashMap<>();
  private final AtomicLong runs = new AtomicLong();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong failedOrOther = new AtomicLong();
  private final Object lock = new Object();
  private long handled;

  @Override
  public void handle(InboxMessage message) {
    runs.incrementAndGet();
    runsById.merge(message.messageId(), 1, Integer::sum);
  }

  @Override
  public void onEvent(InboxEvent event) {
    switch (event.kind()) {
      case ACCEPTED -> accepted.incrementAndGet();
      case DUPLICATE -> duplicates.incrementAndGet();
      case HANDLED -> {
        synchronized (lock) {
          handled++;
          lock.notifyAll();
        }
      }
      case STARTED -> { }
      default -> failedOrOther.incrementAndGet();
    }
  }

  /** Messages the inbox stored as new. */
  public long accepted() {
    return accepted.get();
  }

  /** Deliveries the inbox acknowledged as duplicates. */
  public long duplicates() {
    return duplicates.get();
  }

  /** Messages whose handler finished and whose completion was written. */
  public long handled() {
    synchronized (lock) {
      return handled;
    }
  }

  /** Handler runs, counting a second run of one message twice. */
  public long runs() {
    return runs.get();
  }

  /** Distinct messages the handler ran. */
  public long distinctRun() {
    return runsById.size();
  }

  /** Messages the handler ran more than once. */
  public long runMoreThanOnce() {
    return runsById.values().stream().filter(n -> n > 1).count();
  }

  /** Failures, takeovers, fenced runs, dead letters and the like: none in a healthy run. */
  public long troubles() {
    return failedOrOther.get();
  }

  /**
   * Waits until {@code n} messages are handled or {@code timeout} passed.
   *
   * @return whether they were
   * @throws IllegalStateException if interrupted
   */
  public boolean awaitHandled(long n, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (handled < n) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        try {
          lock.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for the inbox", e);
        }
      }
      return true;
    }
  }
}
