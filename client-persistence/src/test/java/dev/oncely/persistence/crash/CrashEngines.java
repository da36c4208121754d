package dev.oncely.persistence.crash;

import dev.oncely.client.spi.IntentStore;
import dev.oncely.persistence.StoreEngine;
import dev.oncely.persistence.internal.CommitCrashPoints;
import java.nio.file.Path;
import java.util.List;

/**
 * The durable engines the crash harness drives, by name. To put another engine under the kill
 * tests, add it to {@link StoreEngine} and its name to {@link #NAMES}: the child JVM and the
 * verifier use nothing else.
 */
public final class CrashEngines {
  /** Every engine the kill test runs against. */
  public static final List<String> NAMES = List.of("sqlite", "mapdb");

  private CrashEngines() {}

  /** Opens (or creates) the store of {@code engine} at {@code path} with default options. */
  public static IntentStore open(String engine, Path path) {
    return StoreEngine.parse(engine).open(path);
  }

  /**
   * The JVM property that halts {@code engine} in the middle of its engine library's own commit
   * at the {@code n}-th write to a store file, or null when the engine has no such crash point
   * (SQLite's commit is one statement: {@code CommitCrashHook} brackets it).
   */
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

  static String haltInsideEngineCommit(String engine, int n) {
    return engine.equals("mapdb") ? "-D" + CommitCrashPoints.PROPERTY + "=" + n : null;
  }
}
