package dev.oncely.persistence.crash;

import dev.oncely.client.DuplicateIntentException;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * The child JVM of the kill tests. Opens the store, then several threads create or
 * compare-and-set records of {@link CrashWorkload} and print {@code ACK <key> <revision>} (flushed)
 * after each call returned, i.e. after the store acknowledged the write as durable. The parent kills
 * it at any moment.
 *
 * <p>Arguments: {@code <engine> <path> <seed> <count>}. Output lines: {@code OPENED},
 * {@code ACK <key> <revision>}, {@code DONE}; on failure {@code OPEN-FAILED <why>} (exit 3),
 * {@code WRONG <why>} (exit 4) or {@code ERROR <why>} (exit 5). The {@code -D} arguments it was
 * started with may arm crash points ({@link CrashPoints}); an armed halt exits with status 137.
 */
public final class CrashChild {
  static final int THREADS = 4;

  private CrashChild() {}

  public static void main(String[] args) throws Exception {
    CrashPoints.installFromSystemProperties();
    String engine = args[0];
    Path path = Path.of(args[1]);
    long seed = Long.parseLong(args[2]);
    int count = Integer.parseInt(args[3]);
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    IntentStore store = CrashEngines.openInChild(engine, path, out);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      Random random = new Random(seed * 31 + t);
      int ops = count / THREADS;
      Thread thread = new Thread(() -> work(store, random, ops, out), "crash-worker-" + t);
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    store.close();
    out.println("DONE");
    System.exit(0);
  }

  private static void work(IntentStore store, Random random, int ops, PrintStream out) {
    try {
      for (int i = 0; i < ops; i++) {
        String key = CrashWorkload.key(random.nextInt(CrashWorkload.KEYS));
        Optional<IntentRecord> current = store.get(CrashWorkload.id(key));
        if (current.isEmpty()) {
          try {
            store.create(CrashWorkload.record(key, 0));
            out.println("ACK " + key + " 0");
          } catch (DuplicateIntentException lostRace) {
            continue;
          }
        } else {
          IntentRecord r = current.get();
          String problem = CrashWorkload.problemWith(r);
          if (problem != null) {
            out.println("WRONG " + problem);
            System.exit(4);
          }
          IntentRecord next = CrashWorkload.record(key, r.revision() + 1);
          if (store.compareAndSet(r, next)) {
            out.println("ACK " + key + " " + next.revision());
          }
        }
      }
    } catch (RuntimeException | Error e) {
      out.println("ERROR " + CrashEngines.oneLine(e));
      e.printStackTrace();
      System.exit(5);
    }
  }
}
