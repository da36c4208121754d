package dev.oncely.persistence;

import static dev.oncely.client.spi.IntentStoreContract.newRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.UnfinishedEntry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commits wait in memory and reach MapDB on an applier thread while writers, readers and listings
 * go on: every acknowledged write is visible to the next read, listings agree with the records
 * they name, and a reopened store holds exactly what was acknowledged.
 */
class MapDbApplierTest {
  private static final int WRITERS = 8;
  private static final int INTENTS_PER_WRITER = 1_500;

  @TempDir Path dir;

  @Test
  void every_acknowledged_write_is_read_back_while_the_applier_writes_mapdb() throws Exception {
    Path file = dir.resolve("intents.db");
    Set<String> finished = ConcurrentHashMap.newKeySet();
    Set<String> open = ConcurrentHashMap.newKeySet();
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger acknowledged = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 1);
    try (MapDbIntentStore store = MapDbIntentStore.open(file)) {
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        writers.add(pool.submit(() -> {
          for (int i = 0; i < INTENTS_PER_WRITER; i++) {
            String key = "w" + writer + "-" + i;
            IntentRecord created = newRecord("t", "op", key);
            store.create(created);
            assertThat(store.get(created.id())).contains(created);
            if (i % 3 == 0) {
              open.add(key);
              continue;
            }
            IntentRecord done = created.successor().state(IntentState.COMPLETED).build();
            assertThat(store.compareAndSet(created, done)).isTrue();
            assertThat(store.get(created.id())).contains(done);
            finished.add(key);
            acknowledged.incrementAndGet();
          }
          return null;
        }));
      }
      Future<Integer> lister = pool.submit(() -> {
        int listings = 0;
        while (writing.get()) {
          // A listing applies everything pending: leave room for the applier's hand-offs between.
          int seen = acknowledged.get();
          while (writing.get() && acknowledged.get() < seen + 1_000) {
            Thread.yield();
          }
          Set<String> finishedBefore = Set.copyOf(finished);
          Set<String> openBefore = Set.copyOf(open);
          Set<String> listed = keysOf(store.listUnfinishedIds());
          // Nothing finished before the listing is listed; everything left open before it is.
          assertThat(listed).noneMatch(finishedBefore::contains).containsAll(openBefore);
          listings++;
        }
        return listings;
      });
      for (Future<?> f : writers) {
        f.get(5, TimeUnit.MINUTES);
      }
      writing.set(false);
      assertThat(lister.get(1, TimeUnit.MINUTES)).isPositive();
      assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
          .contains("oncely-mapdb-apply " + file.toAbsolutePath());
      assertThat(keysOf(store.listUnfinishedIds())).isEqualTo(open);
    } finally {
      pool.shutdownNow();
    }
    try (MapDbIntentStore reopened = MapDbIntentStore.open(file)) {
      assertThat(keysOf(reopened.listUnfinishedIds())).isEqualTo(open);
      for (String key : finished) {
        assertThat(reopened.get(newRecord("t", "op", key).id()))
            .hasValueSatisfying(r -> assertThat(r.state()).isEqualTo(IntentState.COMPLETED));
      }
    }
  }

  private static Set<String> keysOf(List<UnfinishedEntry> entries) {
    return entries.stream().map(e -> e.id().key()).collect(Collectors.toSet());
  }
}
