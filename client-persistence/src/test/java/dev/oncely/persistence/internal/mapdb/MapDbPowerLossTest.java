package dev.oncely.persistence.internal.mapdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.DuplicateIntentException;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.persistence.crash.CrashWorkload;
import dev.oncely.persistence.internal.mapdb.PowerCutFileIo.Loss;
import dev.oncely.persistence.internal.GroupCommitter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Power loss, which SIGKILL never tests (the page cache survives a kill): the MapDB engine's
 * control file, journal and copies sit behind {@link PowerCutFileIo}; writers run through the
 * engine's real group commit with a small journal limit (so checkpoints happen) and a small apply
 * size (so the applier thread writes MapDB beside the commits), the power is cut
 * at a seeded moment, every write no force covered is dropped (all, a random subset, or all with
 * the last one torn), and the store is reopened from the files alone. Every write acknowledged
 * before the cut must read back; the store must open. {@code -Doncely.powerloss.cuts=N} sets the
 * cuts per loss mode (default 2; the long mode of the kill tests uses 20).
 */
class MapDbPowerLossTest {
  private static final int CUTS = Integer.getInteger("oncely.powerloss.cuts", 2);
  private static final long SEED = Long.getLong("oncely.crash.seed", 20261201L);
  private static final long JOURNAL_LIMIT = 8 * 1024;
  private static final int THREADS = 4;
  /** Overlays go to the applier thread every few changes, so it runs beside every cut. */
  private static final int APPLY_AT = 6;

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @EnumSource(Loss.class)
  void every_acknowledged_write_survives_a_power_cut(Loss loss) throws Exception {
    Random random = new Random(SEED ^ loss.ordinal());
    for (int cut = 0; cut < CUTS; cut++) {
      Path store = Files.createDirectories(dir.resolve(loss + "-" + cut)).resolve("intents.db");
      Map<String, Long> acknowledged = new ConcurrentHashMap<>();
      for (int round = 0; round < 3; round++) {
        runUntilPowerCut(store, acknowledged, loss, random, 20 + random.nextInt(200));
        try (MapDbIntentStore reopened = MapDbIntentStore.open(store)) {
          for (Map.Entry<String, Long> e : acknowledged.entrySet()) {
            Optional<IntentRecord> r = reopened.get(CrashWorkload.id(e.getKey()));
            assertThat(r).as("%s cut %d round %d: acknowledged %s", loss, cut, round, e)
                .isPresent();
            assertThat(r.get().revision()).as("%s cut %d round %d: %s", loss, cut, round, e)
                .isGreaterThanOrEqualTo(e.getValue());
            assertThat(CrashWorkload.problemWith(r.get())).isNull();
          }
        }
      }
      assertThat(acknowledged).isNotEmpty();
    }
  }

  /**
   * The power goes at a seeded write, truncation or force of the checkpoint's own files (the redo,
   * the control file, the image: its redo's writes and force, the slot naming it, the in-place
   * writes and their force, the slot clearing it), so every step of the redo path meets a cut.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Loss.class)
  void every_acknowledged_write_survives_a_power_cut_inside_a_checkpoint(Loss loss)
      throws Exception {
    Random random = new Random(SEED ^ (31 + loss.ordinal()));
    for (int cut = 0; cut < CUTS; cut++) {
      Path store = Files.createDirectories(dir.resolve("checkpoint-" + loss + "-" + cut))
          .resolve("intents.db");
      Map<String, Long> acknowledged = new ConcurrentHashMap<>();
      for (int round = 0; round < 3; round++) {
        long operation = 1 + random.nextInt(60);
        runUntilPowerCut(store, acknowledged, loss, random, operation);
        try (MapDbIntentStore reopened = MapDbIntentStore.open(store)) {
          for (Map.Entry<String, Long> e : acknowledged.entrySet()) {
            Optional<IntentRecord> r = reopened.get(CrashWorkload.id(e.getKey()));
            assertThat(r).as("%s cut %d round %d at operation %d: acknowledged %s", loss, cut,
                round, operation, e).isPresent();
            assertThat(r.get().revision()).as("%s cut %d round %d: %s", loss, cut, round, e)
                .isGreaterThanOrEqualTo(e.getValue());
            assertThat(CrashWorkload.problemWith(r.get())).isNull();
          }
        }
      }
      assertThat(acknowledged).isNotEmpty();
    }
  }

  /**
   * Writes like {@link #runUntilPowerCut(Path, Map, Loss, Random, int)} until the
   * {@code operation}th operation on a checkpoint's files (anything but the journal, whose
   * appends run per commit) cuts the power.
   */
  private static void runUntilPowerCut(Path store, Map<String, Long> acknowledged, Loss loss,
      Random random, long operation) throws Exception {
    Path journal = MapDbCopies.journalPath(store).toAbsolutePath();
    run(store, acknowledged, loss, random, 20_000, io -> io.cutAt(operation,
        file -> !file.equals(journal)));
  }

  /** Writes from several threads through the engine's group commit, then cuts the power. */
  private static void runUntilPowerCut(Path store, Map<String, Long> acknowledged, Loss loss,
      Random random, int acksBeforeCut) throws Exception {
    run(store, acknowledged, loss, random, acksBeforeCut, io -> { });
  }

  private static void run(Path store, Map<String, Long> acknowledged, Loss loss,
      Random random, int acksBeforeCut, java.util.function.Consumer<PowerCutFileIo> arm)
      throws Exception {
    PowerCutFileIo io = new PowerCutFileIo();
    MapDbRecords records = new MapDbRecords(null);
    MapDbCopies copies = MapDbCopies.open(store, io, JOURNAL_LIMIT, new KeyCanary(null),
        APPLY_AT);
    arm.accept(io);
    GroupCommitter<MapDbBatch> committer = new GroupCommitter<>("power-cut", copies, 64);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger acks = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      Random mine = new Random(random.nextLong());
      Thread thread = new Thread(() -> {
        while (!stop.get()) {
          String key = CrashWorkload.key(mine.nextInt(CrashWorkload.KEYS));
          try {
            IntentRecord current = copies.read(f -> records.get(f, CrashWorkload.id(key)));
            if (current == null) {
              MapDbRecords.Encoded created = records.encode(CrashWorkload.record(key, 0));
              committer.execute(b -> {
                records.create(b, created);
                return null;
              });
              acknowledged.merge(key, 0L, Math::max);
            } else {
              long revision = current.revision() + 1;
              MapDbRecords.Encoded next = records.encode(CrashWorkload.record(key, revision));
              if (committer.execute(b -> records.compareAndSet(b, current, next))) {
                acknowledged.merge(key, revision, Math::max);
              }
            }
            acks.incrementAndGet();
          } catch (DuplicateIntentException lostRace) {
            continue;
          } catch (StoreException | IllegalStateException powerLost) {
            return;
          }
        }
      }, "power-cut-writer-" + t);
      threads.add(thread);
      thread.start();
    }
    while (acks.get() < acksBeforeCut && !io.isDead()
        && threads.stream().anyMatch(Thread::isAlive)) {
      Thread.onSpinWait();
    }
    io.die();
    stop.set(true);
    for (Thread thread : threads) {
      thread.join();
    }
    io.cut(loss, random);
  }
}
