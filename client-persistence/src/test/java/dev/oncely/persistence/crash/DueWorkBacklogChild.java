package dev.oncely.persistence.crash;

import dev.oncely.client.DueWorkScheduler;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.persistence.MapDbIntentStore;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The child JVM of {@link DueWorkBacklogTest}: opens a MapDB store holding a backlog of never-sent
 * intents and lets a {@link DueWorkScheduler} with default settings but its interval (batch 64, 64
 * drives at once) drive them, on a client with 64 driver threads, in whatever heap the parent gave
 * it. Prints {@code PROGRESS} lines,
 * then {@code DONE completed=<n> unfinished=<n> seconds=<s> maxHeapUsedMb=<mb>
 * maxHeapAfterGcMb=<mb> maxHeapMb=<mb>} (heap in use sampled every 100 ms, and right after
 * collections) and exits 0; or
 * {@code FAILED <error>} (exit 3) if the scheduler stopped, {@code STUCK} (exit 4) if nothing
 * completed for a minute.
 *
 * <p>Arguments: store path, number of intents, scheduler interval in milliseconds.
 */
public final class DueWorkBacklogChild {
  private static final long STUCK_NANOS = TimeUnit.MINUTES.toNanos(1);

  private DueWorkBacklogChild() {}

  public static void main(String[] args) throws Exception {
    Path path = Path.of(args[0]);
    int count = Integer.parseInt(args[1]);
    Duration interval = Duration.ofMillis(Long.parseLong(args[2]));
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    // Ids, not outcomes: a record claimed as its drive ended is resumed once more and answers its
    // stored outcome without I/O, which would count twice.
    Set<IntentId> completed = ConcurrentHashMap.newKeySet();
    long start = System.nanoTime();
    long maxUsed = 0;
    long maxLive = 0;
    try (MapDbIntentStore store = MapDbIntentStore.open(path);
        // As many driver threads as the scheduler runs drives: each drive commits twice, and
        // commits of 64 drives share one force where 16 threads would wait for one each.
        IdempotentClient client = IdempotentClient.builder().store(store).driverThreads(64)
            .build()) {
      DueWorkScheduler scheduler = DueWorkScheduler.builder(client).interval(interval)
          .outcomes(outcomes -> outcomes.stream()
              .filter(IntentOutcome.Completed.class::isInstance)
              .forEach(o -> completed.add(o.id())))
          .onFailure(e -> out.println("FAILURE " + e))
          .build();
      scheduler.start();
      int last = 0;
      long lastChange = System.nanoTime();
      while (completed.size() < count) {
        if (scheduler.state() == DueWorkScheduler.State.FAILED) {
          out.println("FAILED " + scheduler.failure().orElseThrow());
          System.exit(3);
        }
        TimeUnit.MILLISECONDS.sleep(100);
        maxUsed = Math.max(maxUsed, memory.getHeapMemoryUsage().getUsed());
        maxLive = Math.max(maxLive, usedAfterLastCollection());
        int now = completed.size();
        if (now != last) {
          last = now;
          lastChange = System.nanoTime();
        } else if (System.nanoTime() - lastChange > STUCK_NANOS) {
          out.println("STUCK completed=" + now + " state=" + scheduler.state()
              + " lastTickFailure=" + scheduler.lastTickFailure().orElse(null));
          System.exit(4);
        }
        if (now % 5_000 < 64) {
          out.println("PROGRESS completed=" + now);
        }
      }
      scheduler.close();
      int unfinished = store.listUnfinishedIds().size();
      out.printf("DONE completed=%d unfinished=%d seconds=%.1f maxHeapUsedMb=%d"
          + " maxHeapAfterGcMb=%d maxHeapMb=%d%n", completed.size(), unfinished,
          (System.nanoTime() - start) / 1e9, maxUsed >> 20, maxLive >> 20,
          Runtime.getRuntime().maxMemory() >> 20);
    }
    System.exit(0);
  }

  /** The heap in use right after the last collection of each heap pool: about the live set. */
  private static long usedAfterLastCollection() {
    long used = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      MemoryUsage afterGc = pool.getCollectionUsage();
      if (pool.getType() == MemoryType.HEAP && afterGc != null) {
        used += afterGc.getUsed();
      }
    }
    return used;
  }
}
