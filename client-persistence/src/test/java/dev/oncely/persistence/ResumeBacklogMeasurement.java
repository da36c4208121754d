package dev.oncely.persistence;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.IntentStoreContract;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The heap {@code resumePending()} holds per unfinished intent that waits for its drive: a
 * backlog of never-sent records in a MapDB store (1.5 KB bodies) resumed on an executor that has
 * run nothing yet, heap measured after full collections before and after the call. Printed, never
 * asserted. Runs only with {@code -Doncely.measure=true} ({@code -Doncely.measure.records=N},
 * default 50,000).
 */
@EnabledIfSystemProperty(named = "oncely.measure", matches = "true")
class ResumeBacklogMeasurement {
  @TempDir Path dir;

  @Test
  void heap_held_per_queued_resume() throws Exception {
    int n = Integer.getInteger("oncely.measure.records", 50_000);
    Path file = dir.resolve("backlog.db");
    Instant now = Instant.now();
    byte[] body = new byte[1_536];
    try (IntentStore store = MapDbIntentStore.open(file)) {
      for (int i = 0; i < n; i++) {
        store.create(IntentStoreContract.newRecord("tenant", "pay", "k" + i).toBuilder()
            .url("http://127.0.0.1:9/payments").body(body, "application/json")
            .createdAt(now).updatedAt(now).build());
      }
    }
    ConcurrentLinkedQueue<Runnable> parked = new ConcurrentLinkedQueue<>();
    try (IntentStore store = MapDbIntentStore.open(file);
        IdempotentClient client = IdempotentClient.builder().store(store)
        .executor(parked::add).build()) {
      long before = HeapInUse.afterGc();
      List<CompletableFuture<IntentOutcome>> futures = client.resumePending();
      long after = HeapInUse.afterGc();
      System.out.printf("MEASURE resumePending() of %,d never-sent intents: %,d futures,"
          + " %,d tasks on the executor, heap %+,d bytes = %,.0f bytes per queued intent%n",
          n, futures.size(), parked.size(), after - before, (double) (after - before) / n);
      parked.clear();
    }
  }

}
