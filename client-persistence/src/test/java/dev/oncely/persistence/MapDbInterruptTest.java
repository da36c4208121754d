package dev.oncely.persistence;

import static dev.oncely.client.spi.IntentStoreContract.newRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group commits run on the callers' threads, and a {@code FileChannel} closes itself when the
 * thread using it is interrupted: writers interrupted at random moments (before their commit, or
 * while their thread leads a group through the journal append and force) still get every write
 * committed, the store keeps working through checkpoints, and a reopened store holds every
 * acknowledged write.
 */
class MapDbInterruptTest {
  private static final int WRITERS = 4;
  private static final int WRITES = 300;

  @TempDir Path dir;

  @Test
  void interrupted_writers_lose_no_write_and_leave_the_store_working() throws Exception {
    Path file = dir.resolve("intents.db");
    Set<IntentRecord> written = ConcurrentHashMap.newKeySet();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicBoolean writing = new AtomicBoolean(true);
    StoreOptions options = StoreOptions.builder().journalLimit(64 * 1024).build();
    try (MapDbIntentStore store = MapDbIntentStore.open(file, options)) {
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        Thread t = new Thread(() -> {
          for (int i = 0; i < WRITES && failure.get() == null; i++) {
            IntentRecord r = newRecord("t", "op", "w" + writer + "-" + i);
            try {
              store.create(r);
              written.add(r);
            } catch (RuntimeException e) {
              failure.compareAndSet(null, e);
            }
            if (i % 2 == 0) {
              Thread.interrupted();
            }
          }
        }, "interrupted-writer-" + w);
        writers.add(t);
        t.start();
      }
      Thread interrupter = new Thread(() -> {
        while (writing.get()) {
          for (Thread t : writers) {
            t.interrupt();
            LockSupport.parkNanos(50_000);
          }
        }
      }, "interrupter");
      interrupter.start();
      for (Thread t : writers) {
        t.join();
      }
      writing.set(false);
      interrupter.join();
      assertThat(failure.get()).as("a write failed").isNull();
      assertThat(written).hasSize(WRITERS * WRITES);
      for (IntentRecord r : written) {
        assertThat(store.get(r.id())).contains(r);
      }
    }
    try (MapDbIntentStore reopened = MapDbIntentStore.open(file, options)) {
      for (IntentRecord r : written) {
        assertThat(reopened.get(r.id())).contains(r);
      }
    }
  }
}
