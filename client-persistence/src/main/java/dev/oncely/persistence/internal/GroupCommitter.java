package dev.oncely.persistence.internal;

import dev.oncely.client.StoreException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Group commit without hand-offs: writes from many threads that arrive while a commit runs share
 * the next commit, so durable throughput grows with concurrency instead of paying one fsync per
 * write, and no write waits for another thread to pick it up.
 *
 * <p>The first caller that finds no commit in progress becomes the <em>leader</em>: it takes every
 * queued write (its own first, up to {@code maxBatch}), runs them in arrival order inside one
 * transaction on its own thread, commits, and only then releases their callers: <b>nobody is
 * acknowledged before the commit that covers their write has returned</b>. Callers that arrive
 * meanwhile queue and park once; the leader wakes each when its commit is done, and wakes the
 * first of those still queued to lead the next group (LevelDB's and RocksDB's write groups). A
 * lone caller commits without waking any thread. A write that throws is reported to its own
 * caller only; it must validate before it changes anything, because the other writes of its batch
 * are still committed. If the commit itself fails, every caller in the batch gets a
 * {@link StoreException} and the transaction is rolled back.
 *
 * <p>Commits run on the callers' threads, one at a time: the engine's transactions see one commit
 * after the other, each seeing everything the one before wrote. A leader's interrupt flag is
 * cleared while it commits and restored afterwards, so an interrupt set before the commit does not
 * close the engine's file channels; an engine whose I/O an interrupt during the commit could
 * break recovers from it itself (the MapDB engine's journal reopens its channel).
 *
 * @param <T> the engine's transaction handle
 */
public final class GroupCommitter<T> implements AutoCloseable {

  /** One write, run by the leader inside the batch's transaction. */
  @FunctionalInterface
  public interface Work<T, R> {
    R apply(T transaction);
  }

  /** How the engine opens, commits (durably) and abandons a transaction. */
  public interface Transactions<T> {
    T begin();

    void commit(T transaction);

    void rollback(T transaction);
  }

  /** One caller's write and, once its commit is done, its result. */
  private static final class Task<T> {
    final Work<T, ?> work;
    final Thread caller = Thread.currentThread();
    Object result;
    RuntimeException failure;
    /** Set, under the lock, when the write is committed or failed, or its caller is to lead. */
    volatile boolean done;
    volatile boolean lead;

    Task(Work<T, ?> work) {
      this.work = work;
    }
  }

  private final String name;
  private final Transactions<T> transactions;
  private final int maxBatch;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition();
  private final ArrayDeque<Task<T>> queue = new ArrayDeque<>();
  private boolean leading;
  private boolean closed;

  /**
   * A committer with no commit in progress.
   *
   * @param name names the store in error messages
   * @throws IllegalArgumentException if {@code maxBatch} is less than 1
   */
  public GroupCommitter(String name, Transactions<T> transactions, int maxBatch) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be >= 1, was " + maxBatch);
    }
    this.name = Objects.requireNonNull(name, "name");
    this.transactions = Objects.requireNonNull(transactions, "transactions");
    this.maxBatch = maxBatch;
  }

  /**
   * Runs {@code work} in the next group commit and returns its result once that commit is durable.
   * Waits without giving up on interruption (the write may already be on its way to disk); the
   * interrupt flag is restored before returning.
   *
   * @throws StoreException if the store is closed or the commit failed
   * @throws RuntimeException whatever {@code work} threw (its write was not applied)
   */
  @SuppressWarnings("unchecked")
  public <R> R execute(Work<T, R> work) {
    Objects.requireNonNull(work, "work");
    Task<T> task = new Task<>(work);
    boolean leader;
    lock.lock();
    try {
      if (closed) {
        throw new StoreException(name + " is closed");
      }
      queue.add(task);
      leader = !leading;
      leading = true;
    } finally {
      lock.unlock();
    }
    boolean interrupted = false;
    while (!leader && !task.done) {
      LockSupport.park(this);
      interrupted |= Thread.interrupted();
      leader = task.lead && !task.done;
    }
    if (leader) {
      interrupted |= Thread.interrupted();
      lead();
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (task.failure != null) {
      throw task.failure;
    }
    return (R) task.result;
  }

  /** Commits the next group, releases its callers, and passes the lead on or gives it up. */
  private void lead() {
    List<Task<T>> batch = new ArrayList<>(Math.min(maxBatch, 64));
    lock.lock();
    try {
      while (batch.size() < maxBatch && !queue.isEmpty()) {
        batch.add(queue.poll());
      }
    } finally {
      lock.unlock();
    }
    try {
      commit(batch);
    } catch (Error e) {
      failAll(batch, new StoreException(name + ": commit of " + batch.size() + " writes failed",
          e));
    } finally {
      lock.lock();
      try {
        for (Task<T> t : batch) {
          t.done = true;
        }
        Task<T> next = queue.peek();
        if (next == null) {
          leading = false;
          idle.signalAll();
        } else {
          next.lead = true;
          LockSupport.unpark(next.caller);
        }
      } finally {
        lock.unlock();
      }
      Thread self = Thread.currentThread();
      for (Task<T> t : batch) {
        if (t.caller != self) {
          LockSupport.unpark(t.caller);
        }
      }
    }
  }

  /** How many writes wait for the next commit (for tests and metrics). */
  int queuedWrites() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** Lets the commit in progress and every queued write finish, then refuses writes. Idempotent. */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      while (leading) {
        idle.awaitUninterruptibly();
      }
    } finally {
      lock.unlock();
    }
  }

  private void commit(List<Task<T>> batch) {
    T transaction;
    try {
      transaction = transactions.begin();
    } catch (RuntimeException e) {
      failAll(batch, e);
      return;
    }
    for (Task<T> task : batch) {
      try {
        task.result = task.work.apply(transaction);
      } catch (RuntimeException e) {
        task.failure = e;
      } catch (Error e) {
        task.failure = new StoreException(name + ": write failed: " + e, e);
      }
    }
    try {
      transactions.commit(transaction);
    } catch (RuntimeException e) {
      try {
        transactions.rollback(transaction);
      } catch (RuntimeException rollbackFailure) {
        e.addSuppressed(rollbackFailure);
      }
      failAll(batch, e);
    }
  }

  private void failAll(List<Task<T>> batch, RuntimeException cause) {
    StoreException failure = cause instanceof StoreException store
        ? store
        : new StoreException(name + ": commit of " + batch.size() + " writes failed", cause);
    for (Task<T> task : batch) {
      task.result = null;
      task.failure = failure;
    }
  }
}
