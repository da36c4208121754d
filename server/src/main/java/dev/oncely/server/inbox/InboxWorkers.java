package dev.oncely.server.inbox;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreException;
import dev.oncely.server.internal.DaemonScheduler;
import dev.oncely.server.internal.InboxRecords;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The inbox's threads: one dispatcher that takes due messages from the store (when woken by an
 * accepted message or a finished run, and on every poll) and renews the leases of held messages,
 * and a fixed pool of workers that run handlers. A message is taken only when a worker is free, so
 * what waits stays in the store, not in memory.
 */
final class InboxWorkers {
  private static final System.Logger LOG = System.getLogger(Inbox.class.getName());
  /** How long a message of a source without a handler here waits before it is looked at again. */
  private static final Duration NO_HANDLER_DELAY = Duration.ofMinutes(1);

  private final Inbox inbox;
  private final int size;
  private final Map<String, Function<InboxMessage, @Nullable String>> serialKeys;
  private final ScheduledExecutorService dispatcher;
  private final @Nullable ExecutorService pool;
  private final long pollMillis;
  private final AtomicBoolean pumpQueued = new AtomicBoolean();
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicInteger busy = new AtomicInteger();
  private final Set<Held> held = ConcurrentHashMap.newKeySet();
  /** The messages waiting behind a running one of the same serial key; guarded by itself. */
  private final Map<String, ArrayDeque<Held>> lanes = new HashMap<>();
  private volatile boolean closed;

  InboxWorkers(Inbox inbox, int size, Duration pollInterval,
      Map<String, Function<InboxMessage, @Nullable String>> serialKeys) {
    this.inbox = inbox;
    this.size = size;
    this.serialKeys = serialKeys;
    this.dispatcher = DaemonScheduler.create("oncely-inbox-dispatcher");
    AtomicInteger n = new AtomicInteger();
    this.pool = size == 0 ? null : Executors.newFixedThreadPool(size, r -> {
      Thread t = new Thread(r, "oncely-inbox-worker-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.pollMillis = Math.max(1, pollInterval.toMillis());
    // Leases are renewed from the start: once() callers hold messages before the workers start.
    long sweep = Math.max(50, Math.min(1_000, inbox.lease().toMillis() / 6));
    dispatcher.scheduleWithFixedDelay(this::renewLeases, sweep, sweep, TimeUnit.MILLISECONDS);
  }

  /** Starts taking due messages (at once, then on every poll). Idempotent. */
  void start() {
    if (pool != null && !closed && started.compareAndSet(false, true)) {
      try {
        dispatcher.scheduleWithFixedDelay(this::pump, 0, pollMillis, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // Closed meanwhile: nothing to start.
      }
    }
  }

  /** Asks the dispatcher to look for due messages now (coalesced: one look at a time). */
  void wake() {
    if (pool != null && started.get() && !closed && pumpQueued.compareAndSet(false, true)) {
      try {
        dispatcher.execute(() -> {
          pumpQueued.set(false);
          pump();
        });
      } catch (java.util.concurrent.RejectedExecutionException e) {
        pumpQueued.set(false);
      }
    }
  }

  /** Registers a message this instance now holds, so its lease is renewed. */
  Held hold(InboxMessage message) {
    Held h = new Held(message, inbox.nanos());
    held.add(h);
    return h;
  }

  void release(Held h) {
    held.remove(h);
  }

  /**
   * Runs {@code handler} on the held message and records how it ended.
   *
   * @return what it threw, or null if it finished
   */
  @Nullable Throwable runHandler(Held h, InboxHandler handler) {
    inbox.emit(InboxEvent.Kind.STARTED, h.current());
    Throwable failure = null;
    InboxCompletion completion = null;
    try {
      if (handler instanceof CompletingHandler completing) {
        completion = new InboxCompletion(inbox, h);
        completing.handle(h.current(), completion);
      } else {
        handler.handle(h.current());
      }
    } catch (Exception | Error e) {
      failure = e;
    }
    if (completion != null) {
      if (completion.ended()) {
        // The handler's transaction wrote the run's end (handled, or fenced out): writing it here
        // too would be refused on the revision and read as a takeover.
        if (failure != null) {
          LOG.log(Level.WARNING, "the handler of " + h.current() + " threw after its completion"
              + " was written; the message stays as written: "
              + InboxRecords.describeFailure(failure));
        }
        if (failure instanceof Error error && !(failure instanceof AssertionError)) {
          throw error;
        }
        return null;
      }
      if (failure == null) {
        failure = completion.notEnded();
      }
    }
    try {
      if (failure == null) {
        inbox.complete(h);
      } else {
        inbox.fail(h, failure);
      }
    } catch (StoreException e) {
      // The run's end is not recorded: the lease runs out and the message is run again, which the
      // handler's dedupe absorbs. Nothing is lost.
      LOG.log(Level.WARNING, "recording the end of " + h.current() + " failed; it is run again"
          + " when its lease runs out: " + e.getMessage());
    }
    if (failure instanceof Error error && !(failure instanceof AssertionError)) {
      throw error;
    }
    return failure;
  }

  private void pump() {
    if (closed || pool == null) {
      return;
    }
    try {
      while (!closed) {
        int free = size - busy.get();
        if (free <= 0) {
          return;
        }
        List<IntentRecord> due = inbox.store().claimDue(inbox.clock().instant(), free);
        int taken = 0;
        for (IntentRecord record : due) {
          if (dispatch(record)) {
            taken++;
          }
        }
        if (due.size() < free || taken == 0) {
          return;
        }
      }
    } catch (StoreException e) {
      LOG.log(Level.WARNING, "looking for due inbox messages failed; trying again at the next"
          + " poll: " + e.getMessage());
    } catch (RuntimeException e) {
      LOG.log(Level.ERROR, "the inbox dispatcher failed; trying again at the next poll", e);
    }
  }

  private boolean dispatch(IntentRecord record) {
    try {
      Optional<InboxMessage> found = inbox.messageOf(record);
      if (found.isEmpty()) {
        return false;
      }
      InboxMessage m = found.get();
      InboxHandler handler = inbox.handlerOf(m.source());
      if (handler == null) {
        inbox.emit(InboxEvent.Kind.NO_HANDLER, m);
        inbox.requeue(m, NO_HANDLER_DELAY, m.state() == InboxState.PROCESSING);
        return false;
      }
      Optional<InboxMessage> taken = inbox.take(m);
      if (taken.isEmpty() || taken.get().state() == InboxState.DEAD) {
        return false;
      }
      Held h = hold(taken.get());
      String lane = laneOf(h.current());
      // A message waiting behind its key counts as busy too: what this instance holds, running or
      // waiting, never exceeds the worker count, so a key with a long backlog leaves it in the
      // store instead of in memory under leases the sweep must renew.
      busy.incrementAndGet();
      if (lane != null) {
        synchronized (lanes) {
          ArrayDeque<Held> waiting = lanes.get(lane);
          if (waiting != null) {
            waiting.add(h);
            return true;
          }
          lanes.put(lane, new ArrayDeque<>());
        }
      }
      try {
        pool.execute(() -> runOnWorker(h, handler, lane));
      } catch (RejectedExecutionException closing) {
        // close() shut the pool while this was taken: back to the queue, due at once, rather than
        // held under this closed instance's lease until it runs out and counted as a failure.
        busy.decrementAndGet();
        if (lane != null) {
          synchronized (lanes) {
            lanes.remove(lane);
          }
        }
        requeueQuietly(h);
        return false;
      }
      return true;
    } finally {
      inbox.store().release(record.id());
    }
  }

  private void runOnWorker(Held h, InboxHandler handler, @Nullable String lane) {
    Held next = h;
    InboxHandler nextHandler = handler;
    while (next != null) {
      try {
        runHandler(next, nextHandler);
      } catch (Error e) {
        LOG.log(Level.ERROR, "an inbox handler threw an error", e);
      } finally {
        release(next);
      }
      next = null;
      busy.decrementAndGet();
      if (lane != null) {
        synchronized (lanes) {
          ArrayDeque<Held> waiting = lanes.get(lane);
          next = waiting == null ? null : waiting.poll();
          if (next == null) {
            lanes.remove(lane);
          }
        }
        if (next != null) {
          InboxHandler h2 = inbox.handlerOf(next.current().source());
          if (h2 == null || closed) {
            // Closing: everything that waited behind the last run goes back to the queue, due at
            // once, so this or another instance runs it without waiting for the leases or
            // counting failures.
            List<Held> left = new ArrayList<>();
            left.add(next);
            synchronized (lanes) {
              ArrayDeque<Held> waiting = lanes.remove(lane);
              if (waiting != null) {
                left.addAll(waiting);
              }
            }
            for (Held waiter : left) {
              requeueQuietly(waiter);
              busy.decrementAndGet();
            }
            next = null;
          } else {
            nextHandler = h2;
          }
        }
      }
    }
    wake();
  }

  private void requeueQuietly(Held h) {
    try {
      synchronized (h) {
        inbox.requeue(h.current(), Duration.ZERO, false);
      }
    } catch (StoreException e) {
      LOG.log(Level.WARNING, "putting " + h.current() + " back in the queue failed; it runs again"
          + " when its lease runs out: " + e.getMessage());
    } finally {
      release(h);
    }
  }

  private @Nullable String laneOf(InboxMessage m) {
    Function<InboxMessage, @Nullable String> keyOf = serialKeys.get(m.source());
    if (keyOf == null) {
      return null;
    }
    try {
      String key = keyOf.apply(m);
      return key == null ? null : m.source() + "\u0000" + key;
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "the serial key of " + m + " could not be read; it runs without"
          + " one", e);
      return null;
    }
  }

  private void renewLeases() {
    long now = inbox.nanos();
    for (Held h : held) {
      try {
        inbox.renewIfDue(h, now);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "renewing a lease failed", e);
      }
    }
  }

  void close(Duration grace) {
    closed = true;
    // Not interrupted, and waited for: a look for due messages under way ends (its store calls
    // whole) before close returns, so the caller may close the store next.
    dispatcher.shutdown();
    long deadline = System.nanoTime() + grace.toNanos();
    try {
      dispatcher.awaitTermination(grace.toNanos(), TimeUnit.NANOSECONDS);
      if (pool != null) {
        pool.shutdown();
        if (!pool.awaitTermination(Math.max(0, deadline - System.nanoTime()),
            TimeUnit.NANOSECONDS)) {
          pool.shutdownNow();
        }
      }
    } catch (InterruptedException e) {
      if (pool != null) {
        pool.shutdownNow();
      }
      Thread.currentThread().interrupt();
    }
  }
}
