package dev.oncely.examples.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Operations accepted with {@code 202} that finish later on the scheduler. Each finishes exactly
 * once: whoever removes it from the pending map (the timer or {@link #finishAllNow()}) runs it.
 * Finishing is serialized, so when {@link #finishAllNow()} returns no operation is half-finished.
 */
final class SlowOperations {
  private final ScheduledExecutorService scheduler;
  private final Duration finishAfter;
  private final Map<String, Runnable> pending = new ConcurrentHashMap<>();

  SlowOperations(ScheduledExecutorService scheduler, Duration finishAfter) {
    this.scheduler = scheduler;
    this.finishAfter = finishAfter;
  }

  void schedule(String id, Runnable finish) {
    pending.put(id, finish);
    scheduler.schedule(() -> finish(id), finishAfter.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Finishes every pending operation on the calling thread; returns how many it finished. */
  int finishAllNow() {
    List<String> ids = new ArrayList<>(pending.keySet());
    int n = 0;
    for (String id : ids) {
      if (finish(id)) {
        n++;
      }
    }
    return n;
  }

  int pendingCount() {
    return pending.size();
  }

  private synchronized boolean finish(String id) {
    Runnable r = pending.remove(id);
    if (r == null) {
      return false;
    }
    r.run();
    return true;
  }
}
