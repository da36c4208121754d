package dev.oncely.persistence;

import static dev.oncely.client.spi.IntentStoreContract.fullRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.IntentStoreContract;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The numbers quoted in {@code docs/persistence-mapdb.md}: durable creates per second at
 * concurrency 1 and 64, bytes per record, open + listUnfinished with many unfinished records, and
 * the heap of the due-time index.
 * Printed, never asserted (timing depends on the disk). Runs only with {@code -Doncely.measure=true}.
 */
@EnabledIfSystemProperty(named = "oncely.measure", matches = "true")
class MapDbIntentStoreMeasurement {
  @TempDir Path dir;

  @Test
  void durable_create_rate_grows_with_concurrency() throws Exception {
    for (String engine : new String[] {"mapdb", "sqlite", "mapdb", "sqlite"}) {
      for (int threads : new int[] {1, 64}) {
        rate(engine, threads, threads == 1 ? 300 : 30);
      }
    }
  }

  private void rate(String engine, int threads, int perThread) throws Exception {
    {
      Path path = dir.resolve(engine + "-rate-" + threads + "-" + System.nanoTime() + ".db");
      try (IntentStore store = engine.equals("mapdb") ? MapDbIntentStore.open(path)
          : SqliteIntentStore.open(path)) {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long start = System.nanoTime();
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int n = t;
          futures.add(pool.submit(() -> {
            for (int i = 0; i < perThread; i++) {
              store.create(fullRecord("tenant", "pay", "t" + n + "-" + i));
            }
            return null;
          }));
        }
        for (Future<?> f : futures) {
          f.get(10, TimeUnit.MINUTES);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        System.out.printf("MEASURE %s concurrency %d: %d durable creates in %.2f s = %.0f/s%n",
            engine, threads, threads * perThread, seconds, threads * perThread / seconds);
      }
    }
  }

  @Test
  void open_and_list_unfinished_with_100k_unfinished_records() throws Exception {
    int count = Integer.getInteger("oncely.measure.records", 100_000);
    Path path = dir.resolve("big.db");
    try (MapDbIntentStore store = MapDbIntentStore.open(path, StoreOptions.builder()
        .maxBatch(1024).build())) {
      ExecutorService pool = Executors.newFixedThreadPool(64);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 64; t++) {
        int n = t;
        futures.add(pool.submit(() -> {
          for (int i = n; i < count; i += 64) {
            IntentRecord r = fullRecord("tenant", "pay", "k" + i);
            store.create(r);
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.MINUTES);
      }
      pool.shutdown();
    }
    long bytes = Files.size(dir.resolve("big.db.image")) + Files.size(path);
    System.out.printf("MEASURE %d records: %d bytes on disk (image, control) = %.0f bytes/record%n",
        count, bytes, (double) bytes / count);
    for (int round = 0; round < 4; round++) {
      boolean full = round == 3;
      if (full) {
        Files.delete(dir.resolve("big.db.clean"));
      }
      long start = System.nanoTime();
      try (MapDbIntentStore store = MapDbIntentStore.open(path)) {
        long opened = System.nanoTime();
        int ids = store.listUnfinishedIds().size();
        long listedIds = System.nanoTime();
        List<IntentRecord> unfinished = store.listUnfinished();
        long listed = System.nanoTime();
        assertThat(ids).isEqualTo(count);
        assertThat(unfinished).hasSize(count);
        System.out.printf("MEASURE reopen %d (%s): open %.0f ms, listUnfinishedIds %.0f ms,"
            + " listUnfinished %.0f ms (%d records), load %s%n", round,
            full ? "marker removed, full verification" : "after a clean close",
            (opened - start) / 1e6, (listedIds - opened) / 1e6, (listed - listedIds) / 1e6,
            unfinished.size(), Files.readString(Path.of("/proc/loadavg")).trim());
      }
    }
  }

  /**
   * The heap the in-memory due-time index takes per unfinished record: used heap after full
   * collections before and after the first claim of a reopened store builds it.
   */
  @Test
  void due_index_heap_per_unfinished_record() throws Exception {
    int count = Integer.getInteger("oncely.measure.records", 100_000);
    Path path = dir.resolve("due.db");
    java.time.Instant t0 = java.time.Instant.now();
    try (MapDbIntentStore store = MapDbIntentStore.open(path, StoreOptions.builder()
        .maxBatch(1024).build())) {
      ExecutorService pool = Executors.newFixedThreadPool(64);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 64; t++) {
        int n = t;
        futures.add(pool.submit(() -> {
          for (int i = n; i < count; i += 64) {
            store.create(IntentStoreContract.newRecord("tenant", "pay", "k" + i).toBuilder()
                .state(dev.oncely.client.IntentState.PENDING).nextAttemptAt(t0.plusMillis(i))
                .build());
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.MINUTES);
      }
      pool.shutdown();
    }
    try (MapDbIntentStore store = MapDbIntentStore.open(path)) {
      long before = HeapInUse.afterGc();
      long start = System.nanoTime();
      List<IntentRecord> claimed = store.claimDue(t0.plusSeconds(3600), 64);
      long built = System.nanoTime();
      long after = HeapInUse.afterGc();
      assertThat(claimed).hasSize(64);
      assertThat(store.dueIndexLookups()).hasSize(count);
      System.out.printf("MEASURE due index of %d unfinished records: first claim %.0f ms,"
          + " heap %+d bytes = %.0f bytes per record%n", count, (built - start) / 1e6,
          after - before, (double) (after - before) / count);
    }
  }

}
