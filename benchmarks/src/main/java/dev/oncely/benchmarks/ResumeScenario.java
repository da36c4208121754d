package dev.oncely.benchmarks;

import dev.oncely.benchmarks.internal.Engine;
import dev.oncely.benchmarks.internal.ParallelFill;
import dev.oncely.benchmarks.internal.Records;
import dev.oncely.benchmarks.internal.TempDirs;
import dev.oncely.client.CaffeineRecordCacheFactory;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.RecordCache;
import dev.oncely.client.UnfinishedEntry;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Open a store holding N unfinished intents and list them (what
 * {@code resumePending()} does after a restart), the file size per intent, and the heap one cached
 * finished record takes.
 */
final class ResumeScenario {
  static final String SECTION = "resume";
  private static final int FILL_THREADS = 128;
  private static final int MIN_REPS = 3;
  private static final Duration FILL_BUDGET = Duration.ofSeconds(35);
  private static final Duration REOPEN_BUDGET = Duration.ofSeconds(20);

  private final Settings settings;
  private final Results results;

  ResumeScenario(Settings settings, Results results) {
    this.settings = settings;
    this.results = results;
  }

  void run() {
    int target = settings.resumeIntents();
    for (Engine engine : new Engine[] {Engine.MAPDB, Engine.SQLITE}) {
      Path dir = TempDirs.create("resume");
      try {
        long fillStart = System.nanoTime();
        int n = fill(engine, dir, target, FILL_BUDGET);
        double fillSeconds = (System.nanoTime() - fillStart) / 1e9;
        long bytes = TempDirs.size(dir);
        List<Double> open = new ArrayList<>();
        List<Double> list = new ArrayList<>();
        List<Double> total = new ArrayList<>();
        List<Double> full = new ArrayList<>();
        long repsStart = System.nanoTime();
        for (int rep = 0; rep < settings.reps(); rep++) {
          if (rep >= MIN_REPS && System.nanoTime() - repsStart > REOPEN_BUDGET.toNanos()) {
            break;
          }
          long t0 = System.nanoTime();
          try (IntentStore store = engine.open(dir)) {
            long t1 = System.nanoTime();
            List<UnfinishedEntry> unfinished = store.listUnfinishedIds();
            long t2 = System.nanoTime();
            int records = store.listUnfinished().size();
            long t3 = System.nanoTime();
            if (unfinished.size() != n || records != n) {
              throw new IllegalStateException(engine.label() + " listed " + unfinished.size()
                  + " ids and " + records + " unfinished records, expected " + n);
            }
            open.add((t1 - t0) / 1e6);
            list.add((t2 - t1) / 1e6);
            total.add((t2 - t0) / 1e6);
            full.add((t3 - t2) / 1e6);
          }
          System.out.printf("    rep %d %-8s open+list %d records: %.0f ms%n", rep + 1,
              engine.label(), n, total.get(total.size() - 1));
        }
        String what = engine.label() + ", " + n + " unfinished";
        results.add(SECTION, what + ": open", "ms", open, null);
        results.add(SECTION, what + ": listUnfinishedIds", "ms", list, null);
        results.add(SECTION, what + ": listUnfinished (every full record, for comparison)", "ms",
            full, null);
        if (n == target) {
          results.add(SECTION, what + ": open + list ids", "ms", total, "< 500", v -> v < 500,
              null);
        } else {
          results.add(SECTION, what + ": open + list ids", "ms", total, null);
          List<Double> projected = new ArrayList<>();
          for (int i = 0; i < total.size(); i++) {
            projected.add(open.get(i) + list.get(i) * target / n);
          }
          results.add(SECTION, engine.label() + ", " + target + " unfinished: open + list ids,"
              + " PROJECTED", "ms", projected, "< 500", v -> v < 500, "the fill stopped at "
              + n + " records after " + FILL_BUDGET.toSeconds() + " s; list time scaled by "
              + target + "/" + n);
        }
        results.add(SECTION, engine.label() + " file size per intent", "bytes",
            List.of((double) bytes / n), null, null, "after close, all store files");
        results.add(SECTION, engine.label() + " bulk fill at c=" + FILL_THREADS, "creates/s",
            List.of(n / fillSeconds), null, null, "one run, group commit");
      } finally {
        TempDirs.delete(dir);
      }
    }
    heapPerCachedRecord();
    results.note(SECTION, "Each repetition reopens the same files (the OS page cache is warm, as"
        + " after a process restart; a cold boot reads from disk). Records are NEW payment"
        + " intents of about 70-byte bodies, as the SDK writes them. Filling stops after "
        + FILL_BUDGET.toSeconds() + " s (then the figure for " + target + " is projected);"
        + " reopening repeats at least " + MIN_REPS + " times and then until "
        + REOPEN_BUDGET.toSeconds() + " s have passed.");
  }

  /** Fills up to {@code n} records or until {@code budget} passes; returns how many were made. */
  private static int fill(Engine engine, Path dir, int n, Duration budget) {
    return ParallelFill.fill(engine, dir, n, FILL_THREADS, budget, Records::fresh);
  }

  private void heapPerCachedRecord() {
    int n = settings.heapRecords();
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    List<Double> perRecord = new ArrayList<>();
    for (int rep = 0; rep < settings.reps(); rep++) {
      long before = usedAfterGc(memory);
      RecordCache<IntentId, IntentRecord> cache = new CaffeineRecordCacheFactory().create(n);
      for (int i = 0; i < n; i++) {
        IntentRecord r = Records.completed(i);
        cache.put(r.id(), r);
      }
      long after = usedAfterGc(memory);
      perRecord.add((double) (after - before) / n);
      // Keeps the cache reachable until after the second measurement.
      if (cache.getIfPresent(IntentId.of("x", "y", "z")) != null) {
        throw new IllegalStateException("unexpected cache hit");
      }
      cache.invalidateAll();
    }
    results.add(SECTION, "heap per cached finished record", "bytes", perRecord, null, null,
        "Caffeine cache of " + n + " COMPLETED records with a 201 answer of ~110 bytes, their"
        + " requests dropped as the engine drops them");
  }

  private static long usedAfterGc(MemoryMXBean memory) {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
