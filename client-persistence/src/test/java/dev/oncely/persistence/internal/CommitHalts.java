package dev.oncely.persistence.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Halts the JVM inside an engine's commit, for the kill tests' child JVMs: with
 * {@value #PROPERTY}{@code =<n>} in the n-th commit of the process just before the engine's commit
 * statement, with {@code <n>:after} right after it returned and before any writer was
 * acknowledged. A halt is {@link Runtime#halt} with {@value #HALT_STATUS}: no shutdown hooks, the
 * status of a process killed by SIGKILL.
 */
public final class CommitHalts implements CommitCrashHook.Points {
  /** The system property a child JVM reads to arm the halt. */
  public static final String PROPERTY = "oncely.test.haltInCommit";

  /** The exit status of a halt, the same as a process killed by SIGKILL. */
  public static final int HALT_STATUS = 137;

  private final int haltAt;
  private final boolean after;
  private final AtomicInteger commits = new AtomicInteger();

  private CommitHalts(int haltAt, boolean after) {
    this.haltAt = haltAt;
    this.after = after;
  }

  /**
   * Arms the halt {@value #PROPERTY} asks for, if it is set; a child JVM's main calls this before
   * it opens a store.
   */
  public static void installFromSystemProperties() {
    String value = System.getProperty(PROPERTY, "").trim();
    if (value.isEmpty()) {
      return;
    }
    boolean after = value.endsWith(":after");
    String number = after ? value.substring(0, value.length() - ":after".length()) : value;
    CommitCrashHook.install(new CommitHalts(Integer.parseInt(number), after));
  }

  /** Halts this JVM the way every crash point does. */
  public static void halt() {
    Runtime.getRuntime().halt(HALT_STATUS);
  }

  @Override
  public void beforeCommit() {
    if (commits.incrementAndGet() == haltAt && !after) {
      halt();
    }
  }

  @Override
  public void afterCommit() {
    if (after && commits.get() == haltAt) {
      halt();
    }
  }
}
