package dev.oncely.persistence;

import static dev.oncely.client.spi.IntentStoreContract.newRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.DueTime;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.spi.RecordCodec;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
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
 * with a due time (and at most the early entry of a record never due, until a claim reads it),
 * and claims return exactly the due records, earliest first.
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
    // left early until a write or a claim meets them).
    try (MapDbIntentStore store = MapDbIntentStore.open(file)) {
      Random random = new Random(7);
      for (int i = 0; i < 300; i++) {
        IntentRecord r = write(store, null, "before-" + i, random);
        latest.put(r.id(), r);
      }
    }
    // Each writer moves its share of these and the records it creates itself, so no record is
    // written by two writers.
    List<IntentRecord> beforeReopen = List.copyOf(latest.values());
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger claims = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 2);
    try (MapDbIntentStore store = MapDbIntentStore.open(file)) {
      assertThat(store.dueIndexLookups()).isNull();
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        writers.add(pool.submit(() -> {
          Random random = new Random(writer);
          List<IntentRecord> mine = new ArrayList<>();
          for (IntentRecord r : beforeReopen) {
            if (Math.floorMod(r.id().key().hashCode(), WRITERS) == writer) {
              mine.add(r);
            }
          }
          for (int i = 0; i < PER_WRITER; i++) {
            IntentRecord before = i % 2 == 0 || mine.isEmpty() ? null
                : mine.remove(random.nextInt(mine.size()));
            IntentRecord r = write(store, before, "w" + writer + "-" + i, random);
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
      // Every write moved its record's entry: one entry per due record (an early one left by the
      // build included), none for a finished record. A record never due may still have the early
      // entry the build gave it from its stub, until a claim reads it.
      Map<String, Integer> entries = new HashMap<>();
      for (byte[] lookup : store.dueIndexLookups()) {
        entries.merge(Arrays.toString(lookup), 1, Integer::sum);
      }
      for (IntentRecord r : latest.values()) {
        Integer n = entries.remove(Arrays.toString(RecordCodec.lookupKey(r.id())));
        if (DueTime.of(r) != null) {
          assertThat(n).as("entries of due record %s", r).isEqualTo(1);
        } else if (r.state().isTerminal()) {
          assertThat(n).as("entries of finished record %s", r).isNull();
        } else {
          assertThat(n).as("entries of never-due record %s", r).isIn(null, 1);
        }
      }
      assertThat(entries).as("entries of no record").isEmpty();
      assertThat(store.claimDue(FAR, 100_000)).containsExactlyElementsOf(due);
      // That claim read every early entry up to FAR and moved or dropped it.
      assertThat(store.dueIndexLookups()).hasSize(due.size());
      assertThat(store.claimDue(DueTime.of(due.get(9)), 100_000))
          .containsExactlyElementsOf(due.subList(0, 10));
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Creates record {@code key} ({@code before} null) or moves {@code before} on, to a random state
   * with a random, distinct due time: every way a record can be due, never due, or finished.
   */
  private static IntentRecord write(MapDbIntentStore store, IntentRecord before, String key,
      Random random) {
    // Created at a random time, so an early entry (at the creation time) sits anywhere in the
    // index; due after it, at distinct nanos per write: no two records are due at the same time.
    Instant created = before != null ? before.createdAt() : T0.plusSeconds(random.nextInt(50_000));
    Instant at = created.plusSeconds(random.nextInt(50_000)).plusNanos(WRITES.incrementAndGet());
    int kind = random.nextInt(6);
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
