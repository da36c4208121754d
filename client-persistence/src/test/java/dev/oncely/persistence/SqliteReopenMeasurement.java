package dev.oncely.persistence;

import static dev.oncely.client.spi.IntentStoreContract.newRecord;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.persistence.internal.sqlite.SqliteCleanClose;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The numbers quoted in {@code docs/persistence-sqlite.md} for the open after a clean close: a
 * store of {@code -Doncely.measure.finished} (default 1,000,000) finished intents, and one of
 * {@code -Doncely.measure.unfinished} (default 100,000) unfinished ones, with 750-byte bodies,
 * reopened and listed after a clean close, then once with the marker removed (the full check an
 * open after a crash runs). Printed, never asserted. Runs only with {@code -Doncely.measure=true}.
 */
@EnabledIfSystemProperty(named = "oncely.measure", matches = "true")
class SqliteReopenMeasurement {
  private static final int THREADS = 64;

  @TempDir Path dir;

  @Test
  void reopen_after_a_clean_close_does_not_grow_with_the_store() throws Exception {
    measure(Integer.getInteger("oncely.measure.finished", 1_000_000), IntentState.COMPLETED);
  }

  @Test
  void open_and_list_of_many_unfinished_after_a_clean_close() throws Exception {
    measure(Integer.getInteger("oncely.measure.unfinished", 100_000), IntentState.PENDING);
  }

  private void measure(int count, IntentState state) throws Exception {
    Path file = dir.resolve(state + ".db");
    long fillStart = System.nanoTime();
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      List<Future<?>> done = new ArrayList<>();
      byte[] body = new byte[750];
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        done.add(pool.submit(() -> {
          for (int i = thread; i < count; i += THREADS) {
            IntentRecord r = newRecord("tenant", "pay", "k-" + i).toBuilder()
                .body(body, "application/json").state(state).build();
            store.create(r);
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      pool.shutdown();
    }
    System.out.printf("filled %d %s in %.1f s, %.2f KB per intent, load %s%n", count, state,
        (System.nanoTime() - fillStart) / 1e9, Files.size(file) / 1024.0 / count, load());
    for (int rep = 0; rep < 5; rep++) {
      reopen(file, "clean close");
    }
    SqliteCleanClose.forget(file);
    reopen(file, "no marker (full check)");
    reopen(file, "clean close");
  }

  private static void reopen(Path file, String what) throws Exception {
    long t0 = System.nanoTime();
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      long t1 = System.nanoTime();
      int unfinished = store.listUnfinishedIds().size();
      long t2 = System.nanoTime();
      System.out.printf("%-24s open %6.0f ms, list (%d) %5.0f ms, open+list %6.0f ms, load %s%n",
          what, (t1 - t0) / 1e6, unfinished, (t2 - t1) / 1e6, (t2 - t0) / 1e6, load());
    }
  }

  private static String load() throws Exception {
    return Files.readString(Path.of("/proc/loadavg")).trim();
  }
}
