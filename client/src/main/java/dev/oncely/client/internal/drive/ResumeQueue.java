package dev.oncely.client.internal.drive;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Resumes a backlog of intents a few at a time, in order, so resuming thousands of records after a
 * restart neither holds every body in memory, nor a drive per record, nor floods the client with
 * queued work: what waits its turn is an id and a future (the id is let go once its drive starts).
 * Two limits: how many started drives may still be <em>starting</em> (queued for a thread or on
 * one; a drive stops starting once it {@linkplain Started#freed gives its thread back} to wait, or
 * ends), and how many may be <em>in progress</em> (started and not ended, waiting ones included),
 * which bounds the records in memory whatever the server answers. One future per id, completed with
 * that drive's outcome, or exceptionally with what starting it threw. Both entry points resume
 * through it. Thread-safe.
 */
public final class ResumeQueue {
  /**
   * A started drive: {@code outcome} completes when it ends, {@code freed} when it no longer holds
   * a place among the starting ones (when it first waits, or ends).
   */
  public record Started(CompletableFuture<IntentOutcome> outcome, CompletableFuture<?> freed) {
    /** A drive that holds its place until it ends (a blocking call). */
    public static Started untilEnd(CompletableFuture<IntentOutcome> outcome) {
      return new Started(outcome, outcome);
    }
  }

  private final IntentId[] ids;
  private final boolean[] freed;
  private final int maxStarting;
  private final int maxInProgress;
  private final Function<IntentId, Started> start;
  private final List<CompletableFuture<IntentOutcome>> futures;
  /** Pending requests to pump; only the caller that raises it from 0 pumps (no recursion). */
  private final AtomicInteger pumps = new AtomicInteger();
  private int next;
  private int starting;
  private int inProgress;

  private ResumeQueue(List<IntentId> ids, int maxStarting, int maxInProgress,
      Function<IntentId, Started> start) {
    this.ids = ids.toArray(new IntentId[0]);
    this.freed = new boolean[this.ids.length];
    this.maxStarting = maxStarting;
    this.maxInProgress = maxInProgress;
    this.start = start;
    this.futures = new ArrayList<>(this.ids.length);
    for (int i = 0; i < this.ids.length; i++) {
      futures.add(new CompletableFuture<>());
    }
  }

  /**
   * Starts the drives of {@code ids} in order, at most {@code maxStarting} still starting and at
   * most {@code maxInProgress} not ended at once.
   *
   * @return one future per id, in the order of {@code ids}
   * @throws IllegalArgumentException if a limit is not positive
   */
  public static List<CompletableFuture<IntentOutcome>> run(List<IntentId> ids, int maxStarting,
      int maxInProgress, Function<IntentId, Started> start) {
    if (maxStarting < 1 || maxInProgress < 1) {
      throw new IllegalArgumentException("limits must be positive, were " + maxStarting + " and "
          + maxInProgress);
    }
    ResumeQueue queue = new ResumeQueue(ids, maxStarting, maxInProgress, start);
    queue.pump();
    return Collections.unmodifiableList(queue.futures);
  }

  /**
   * Starts drives while the limits allow. Whoever calls it while another caller pumps only asks
   * that caller to look again, so a drive that ends at once (a finished record, a closed client)
   * never makes the stack grow with the backlog.
   */
  private void pump() {
    if (pumps.getAndIncrement() != 0) {
      return;
    }
    int missed = 1;
    do {
      for (int i = take(); i >= 0; i = take()) {
        IntentId id = ids[i];
        ids[i] = null;
        Started started = startSafely(id);
        int index = i;
        started.freed().whenComplete((v, e) -> {
          free(index);
          pump();
        });
        started.outcome().whenComplete((outcome, failure) -> {
          settle(index, outcome, failure);
          end(index);
          pump();
        });
      }
      missed = pumps.addAndGet(-missed);
    } while (missed != 0);
  }

  /** The index of the next drive to start, counted as starting and in progress; -1 if none may. */
  private synchronized int take() {
    if (next >= ids.length || starting >= maxStarting || inProgress >= maxInProgress) {
      return -1;
    }
    starting++;
    inProgress++;
    return next++;
  }

  private synchronized void free(int i) {
    if (!freed[i]) {
      freed[i] = true;
      starting--;
    }
  }

  private synchronized void end(int i) {
    free(i);
    inProgress--;
  }

  private Started startSafely(IntentId id) {
    try {
      return start.apply(id);
    } catch (RuntimeException e) {
      CompletableFuture<IntentOutcome> failed = new CompletableFuture<>();
      failed.completeExceptionally(e);
      return Started.untilEnd(failed);
    }
  }

  private void settle(int i, IntentOutcome outcome, Throwable failure) {
    if (failure != null) {
      futures.get(i).completeExceptionally(failure);
    } else {
      futures.get(i).complete(outcome);
    }
  }
}
