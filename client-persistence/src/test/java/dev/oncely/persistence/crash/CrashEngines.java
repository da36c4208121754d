package dev.oncely.persistence.crash;

import dev.oncely.client.IntentStore;
import dev.oncely.persistence.StoreEngine;
import dev.oncely.persistence.StoreOptions;
import dev.oncely.persistence.internal.CommitHalts;
import dev.oncely.persistence.internal.mapdb.MapDbHalts;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

/**
 * The durable engines the crash harness drives, by name. To put another engine under the kill
 * tests, add it to {@link StoreEngine} and its name to {@link #NAMES}: the child JVM and the
 * verifier use nothing else.
 */
public final class CrashEngines {
  /** Every engine the kill test runs against. */
  public static final List<String> NAMES = List.of("sqlite", "mapdb");

  /**
   * The engines the kill tests run against: {@link #NAMES}, or those named in {@code
   * -Doncely.crash.engines} (comma-separated), to run a long mode on one engine.
   *
   * @throws IllegalArgumentException if the property names an unknown engine
   */
  public static List<String> underTest() {
    String chosen = System.getProperty("oncely.crash.engines");
    if (chosen == null || chosen.isBlank()) {
      return NAMES;
    }
    List<String> engines = List.of(chosen.split(","));
    for (String engine : engines) {
      if (!NAMES.contains(engine)) {
        throw new IllegalArgumentException("oncely.crash.engines: unknown engine '" + engine
            + "', known: " + NAMES);
      }
    }
    return engines;
  }

  /**
   * The MapDB journal limit under the kill tests: a checkpoint every few group commits, so kills
   * land inside checkpoints too (the default, 64 MiB, is never reached by a child).
   */
  static final long JOURNAL_LIMIT = 16 * 1024;

  private CrashEngines() {}

  /** Opens (or creates) the store of {@code engine} at {@code path}, checkpointing often. */
  public static IntentStore open(String engine, Path path) {
    return StoreEngine.parse(engine).open(path,
        StoreOptions.builder().journalLimit(JOURNAL_LIMIT).build());
  }

  /**
   * Opens the store for a child JVM and prints {@code OPENED}; on failure prints {@code
   * OPEN-FAILED <why>} and exits with status 3, the protocol every crash child speaks.
   */
  static IntentStore openInChild(String engine, java.nio.file.Path path,
      java.io.PrintStream out) {
    try {
      IntentStore store = open(engine, path);
      out.println("OPENED");
      return store;
    } catch (RuntimeException e) {
      out.println("OPEN-FAILED " + oneLine(e));
      System.exit(3);
      throw e;
    }
  }

  /** {@code e} as one line for a child's output. */
  static String oneLine(Throwable e) {
    return (e.getClass().getName() + ": " + e.getMessage()).replace('\n', ' ');
  }

  /**
   * A JVM property that halts {@code engine} inside its own I/O, picked by {@code random}: for
   * MapDB, at a seeded write to a copy, in a seeded journal append (leaving a torn tail), or at a
   * seeded step of a seeded checkpoint (after the image was forced, between the control write and
   * the journal reset, half-way through copying the image). Null when the engine has none
   * (SQLite's commit is one statement: {@link CommitHalts} brackets it).
   */
  static String haltInsideEngine(String engine, Random random) {
    if (!engine.equals("mapdb")) {
      return null;
    }
    return switch (random.nextInt(3)) {
      case 0 -> "-D" + MapDbHalts.WRITE_PROPERTY + "=" + (1 + random.nextInt(60));
      case 1 -> "-D" + MapDbHalts.JOURNAL_PROPERTY + "=" + (1 + random.nextInt(12));
      default -> {
        List<String> steps = MapDbHalts.checkpointSteps();
        yield "-D" + MapDbHalts.CHECKPOINT_PROPERTY + "=" + (1 + random.nextInt(3)) + ":"
            + steps.get(random.nextInt(steps.size()));
      }
    };
  }
}
