package dev.oncely.persistence.internal;

import dev.oncely.client.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Group commit: writes from many threads that arrive while a commit runs share the next commit,
 * so durable throughput grows with concurrency instead of paying one fsync per write.
 *
 * <p>One committer thread takes every queued write (up to {@code maxBatch}), runs them in arrival
 * order inside one transaction, commits, and only then releases their callers: <b>nobody is
 * acknowledged before the commit that covers their write has returned</b>. A write that throws is
 * reported to its own caller only; it must validate before it changes anything, because the other
 * writes of its batch are still committed. If the commit itself fails, every caller in the batch
 * gets a {@link StoreException} and the transaction is rolled back.
 *
 * @param <T> the engine's transaction handle
 */
public final class GroupCommitter<T> implements AutoCloseable {

  /** One write, run on the committer thread inside the batch's transaction. */
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

  private record Task<T>(Work<T, ?> work, CompletableFuture<Object> done) {}

  private static final Task<?> STOP = new Task<>(t -> null, new CompletableFuture<>());

  private final String name;
  private final Transactions<T> transactions;
  private final int maxBatch;
  private final BlockingQueue<Task<T>> queue = new LinkedBlockingQueue<>();
  private final Thread thread;
  private volatile boolean closed;

  /**
   * Starts the committer thread.
   *
   * @param name names the store in thread names and error messages
   * @throws IllegalArgumentException if {@code maxBatch} is less than 1
   */
  public GroupCommitter(String name, Transactions<T> transactions, int maxBatch) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be >= 1, was " + maxBatch);
    }
    this.name = Objects.requireNonNull(name, "name");
    this.transactions = Objects.requireNonNull(transactions, "transactions");
    this.maxBatch = maxBatch;
    this.thread = new Thread(this::run, "oncely-group-commit " + name);
    this.thread.setDaemon(true);
    this.thread.start();
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
    CompletableFuture<Object> done = new CompletableFuture<>();
    synchronized (this) {
      if (closed) {
        throw new StoreException(name + " is closed");
      }
      queue.add(new Task<>(work, done));
    }
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return (R) done.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException runtime) {
            throw runtime;
          }
          throw new StoreException(name + ": write failed", e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** How many writes wait for the next commit (for tests and metrics). */
  int queuedWrites() {
    return queue.size();
  }

  /** Commits what is queued, then stops the committer thread. Idempotent. */
  @Override
  @SuppressWarnings("unchecked")
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      queue.add((Task<T>) STOP);
    }
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    List<Task<T>> batch = new ArrayList<>(maxBatch);
    boolean stopping = false;
    while (!stopping) {
      batch.clear();
      try {
        batch.add(queue.take());
      } catch (InterruptedException e) {
        continue;
      }
      queue.drainTo(batch, maxBatch - 1);
      if (batch.get(batch.size() - 1) == STOP) {
        batch.remove(batch.size() - 1);
        stopping = true;
      }
      if (!batch.isEmpty()) {
        commit(batch);
      }
    }
  }

  private void commit(List<Task<T>> batch) {
    List<Object> results = new ArrayList<>(batch.size());
    List<RuntimeException> failures = new ArrayList<>(batch.size());
    T transaction;
    try {
      transaction = transactions.begin();
    } catch (RuntimeException e) {
      failAll(batch, e);
      return;
    }
    for (Task<T> task : batch) {
      try {
        results.add(task.work().apply(transaction));
        failures.add(null);
      } catch (RuntimeException e) {
        results.add(null);
        failures.add(e);
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
      return;
    }
    for (int i = 0; i < batch.size(); i++) {
      if (failures.get(i) != null) {
        batch.get(i).done().completeExceptionally(failures.get(i));
      } else {
        batch.get(i).done().complete(results.get(i));
      }
    }
  }

  private void failAll(List<Task<T>> batch, RuntimeException cause) {
    StoreException failure = cause instanceof StoreException store
        ? store
        : new StoreException(name + ": commit of " + batch.size() + " writes failed", cause);
    for (Task<T> task : batch) {
      task.done().completeExceptionally(failure);
    }
  }
}
