package dev.oncely.client.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Resumes a backlog of intents a few at a time: each drive starts (and reads its record) only when
 * an earlier one ended, so resuming thousands of records after a restart neither holds every body
 * in memory, nor a drive per record, nor floods the app's client with queued calls: what waits is
 * its id and its future (the id is let go once its drive starts). One future per id, completed
 * with that drive's outcome, or exceptionally with what starting it threw. Both entry points
 * resume through it.
 */
public final class ResumeQueue {
  private final IntentId[] ids;
  private final Function<IntentId, CompletableFuture<IntentOutcome>> start;
  private final List<CompletableFuture<IntentOutcome>> futures;
  private final AtomicInteger next = new AtomicInteger();

  private ResumeQueue(List<IntentId> ids, Function<IntentId, CompletableFuture<IntentOutcome>> start) {
    this.ids = ids.toArray(new IntentId[0]);
    this.start = start;
    this.futures = new ArrayList<>(this.ids.length);
    for (int i = 0; i < this.ids.length; i++) {
      futures.add(new CompletableFuture<>());
    }
  }

  /**
   * Starts at most {@code inFlight} drives of {@code ids} at once, in order.
   *
   * @return one future per id, in the order of {@code ids}
   */
  public static List<CompletableFuture<IntentOutcome>> run(List<IntentId> ids, int inFlight,
      Function<IntentId, CompletableFuture<IntentOutcome>> start) {
    ResumeQueue queue = new ResumeQueue(ids, start);
    for (int i = 0; i < inFlight; i++) {
      queue.pump();
    }
    return Collections.unmodifiableList(queue.futures);
  }

  /** Starts the next drives until one is still running; its end pumps again. */
  private void pump() {
    while (true) {
      int i = next.getAndIncrement();
      if (i >= ids.length) {
        return;
      }
      IntentId id = ids[i];
      ids[i] = null;
      CompletableFuture<IntentOutcome> running = startSafely(id);
      if (!running.isDone()) {
        running.whenComplete((outcome, failure) -> {
          settle(i, outcome, failure);
          pump();
        });
        return;
      }
      running.whenComplete((outcome, failure) -> settle(i, outcome, failure));
    }
  }

  private CompletableFuture<IntentOutcome> startSafely(IntentId id) {
    try {
      return start.apply(id);
    } catch (RuntimeException e) {
      CompletableFuture<IntentOutcome> failed = new CompletableFuture<>();
      failed.completeExceptionally(e);
      return failed;
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
