package dev.oncely.persistence.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test-only crash point inside engine commits, for the kill tests: with the system property
 * {@value #PROPERTY}{@code =<n>} the JVM halts (exit status 137, no shutdown hooks, like SIGKILL)
 * in the n-th commit of the process just before the engine's commit statement; with
 * {@code <n>:after} right after the commit returned and before any writer was acknowledged.
 * Without the property it costs one check of a static final field per commit.
 */
public final class CommitCrashHook {
  /** The system property that arms the hook. */
  public static final String PROPERTY = "oncely.test.haltInCommit";

  /** The exit status of a halt, the same as a process killed by SIGKILL. */
  public static final int HALT_STATUS = 137;

  private static final int HALT_AT;
  private static final boolean AFTER;
  private static final AtomicInteger COMMITS = new AtomicInteger();

  static {
    String value = System.getProperty(PROPERTY, "").trim();
    boolean after = value.endsWith(":after");
    String number = after ? value.substring(0, value.length() - ":after".length()) : value;
    HALT_AT = number.isEmpty() ? 0 : Integer.parseInt(number);
    AFTER = after;
  }

  private CommitCrashHook() {}

  /** Engines call this after writing a batch and before their commit statement. */
  public static void beforeCommit() {
    if (HALT_AT > 0 && COMMITS.incrementAndGet() == HALT_AT && !AFTER) {
      Runtime.getRuntime().halt(HALT_STATUS);
    }
  }

  /** Engines call this when their commit statement returned, before acknowledging writers. */
  public static void afterCommit() {
    if (HALT_AT > 0 && AFTER && COMMITS.get() == HALT_AT) {
      Runtime.getRuntime().halt(HALT_STATUS);
    }
  }
}
