package dev.oncely.persistence;

import static dev.oncely.client.spi.IntentStoreContract.newRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.DueTime;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MapDB engine's in-memory due-time index: built by the first claim while writers commit,
 * from records written before a reopen and after it, it ends holding exactly one entry per record
 * with a due time, and claims return exactly the due records, earliest first.
 */
class MapDbDueIndexTest {
  private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");
  private static final Instant FAR = T0.plusSeconds(1_000_000);
  private static final int WRITERS = 6;
  private static final int PER_WRITER = 250;
  private static final AtomicInteger WRITES = new AtomicInteger();

  @TempDir Path dir;

  @Test
  void claims_beside_writers_leave_one_exact_entry_per_due_record() throws Exception {
    Path file = dir.resolve("intents.db");
    Map<IntentId, IntentRecord> latest = new ConcurrentHashMap<>();
    // Records from before the reopen: the first claim builds their entries from stubs (early, and
    // left early until a write or a claim meets them; none never due, so each entry is a record's).
    try (MapDbIntentStore store = MapDbIntentStore.open(file)) {
      Random random = new Random(7);
      for (int i = 0; i < 300; i++) {
        IntentRecord r = write(store, null, "before-" + i, random, false);
        latest.put(r.id(), r);
      }
    }
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger claims = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 2);
    try (MapDbIntentStore store = MapDbIntentStore.open(file)) {
      assertThat(store.dueIndexEntries()).isEqualTo(-1);
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        writers.add(pool.submit(() -> {
          Random random = new Random(writer);
          List<IntentRecord> mine = new ArrayList<>();
          for (IntentRecord r : latest.values()) {
            if (Math.floorMod(r.id().key().hashCode(), WRITERS) == writer) {
              mine.add(r);
            }
          }
          for (int i = 0; i < PER_WRITER; i++) {
            IntentRecord before = i % 2 == 0 || mine.isEmpty() ? null
                : mine.remove(random.nextInt(mine.size()));
            IntentRecord r = write(store, before, "w" + writer + "-" + i, random, true);
            latest.put(r.id(), r);
            if (!r.state().isTerminal()) {
              mine.add(r);
            }
          }
          return null;
        }));
      }
      List<Future<?>> claimers = new ArrayList<>();
      for (int c = 0; c < 2; c++) {
        claimers.add(pool.submit(() -> {
          while (writing.get()) {
            List<IntentRecord> claimed = store.claimDue(FAR, 50);
            assertThat(claimed).extracting(DueTime::of).isSorted();
            claims.incrementAndGet();
          }
          return null;
        }));
      }
      for (Future<?> f : writers) {
        f.get(5, TimeUnit.MINUTES);
      }
      writing.set(false);
      for (Future<?> f : claimers) {
        f.get(1, TimeUnit.MINUTES);
      }
      List<IntentRecord> due = new ArrayList<>();
      for (IntentRecord r : latest.values()) {
        if (DueTime.of(r) != null) {
          due.add(r);
        }
      }
      due.sort(Comparator.comparing(DueTime::of));
      assertThat(claims.get()).isPositive();
      // Every write moved its record's entry: the index holds one per due record, no leftovers
      // (the early entries of records written since the build included).
      assertThat(store.dueIndexEntries()).isEqualTo(due.size());
      assertThat(store.claimDue(FAR, 100_000)).containsExactlyElementsOf(due);
      assertThat(store.dueIndexEntries()).isEqualTo(due.size());
      assertThat(store.claimDue(DueTime.of(due.get(9)), 100_000))
          .containsExactlyElementsOf(due.subList(0, 10));
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Creates record {@code key} ({@code before} null) or moves {@code before} on, to a random state
   * with a random, distinct due time: every way a record can be due, finished, or (with {@code
   * neverDue}) never due.
   */
  private static IntentRecord write(MapDbIntentStore store, IntentRecord before, String key,
      Random random, boolean neverDue) {
    // Created at a random time, so an early entry (at the creation time) sits anywhere in the
    // index; due after it, at distinct nanos per write: no two records are due at the same time.
    Instant created = before != null ? before.createdAt() : T0.plusSeconds(random.nextInt(50_000));
    Instant at = created.plusSeconds(random.nextInt(50_000)).plusNanos(WRITES.incrementAndGet());
    int kind = random.nextInt(6);
    if (kind == 4 && !neverDue) {
      kind = 2;
    }
    IntentRecord.Builder next = before == null
        ? newRecord("s", "op", key).toBuilder().createdAt(created).updatedAt(created)
        : before.successor();
    switch (kind) {
      case 0 -> next.state(IntentState.NEW).nextAttemptAt(null).updatedAt(at);
      case 1 -> next.state(IntentState.IN_FLIGHT).nextAttemptAt(at);
      case 2 -> next.state(IntentState.PENDING).nextAttemptAt(at);
      case 3 -> next.state(IntentState.PENDING).nextAttemptAt(null).updatedAt(at);
      case 4 -> next.state(IntentState.NEEDS_RECONCILIATION).nextAttemptAt(at);
      default -> next.state(before == null ? IntentState.PENDING : IntentState.COMPLETED)
          .nextAttemptAt(at);
    }
    IntentRecord r = next.build();
    if (before == null) {
      store.create(r);
    } else {
      assertThat(store.compareAndSet(before, r)).isTrue();
    }
    return r;
  }
}
