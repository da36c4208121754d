package dev.oncely.persistence.internal;

import java.util.Objects;

/**
 * The two points of an engine's group commit where a kill test stops the process: {@link
 * #beforeCommit} after a batch's writes and before the commit statement (SQLite's {@code COMMIT},
 * the MapDB engine's journal append), {@link #afterCommit} once that returned and before any
 * writer is acknowledged.
 *
 * <p>A shipped store has nothing installed here and reads no setting for it: each point is one
 * read of a volatile field and a call that does nothing. A kill test's child JVM installs its
 * {@link Points} from its own main, before it opens a store, through a class of this package in
 * the test sources; that is the only way in.
 */
public final class CommitCrashHook {
  /** What runs at the points, on the thread leading the group commit. */
  interface Points {
    /** Called after a batch's writes, before the commit statement. */
    void beforeCommit();

    /** Called when the commit statement returned, before any writer is acknowledged. */
    void afterCommit();
  }

  private static final Points NONE = new Points() {
    @Override
    public void beforeCommit() {}

    @Override
    public void afterCommit() {}
  };

  private static volatile Points points = NONE;

  private CommitCrashHook() {}

  /** Runs {@code installed} at the points of every commit of this JVM from now on. */
  static void install(Points installed) {
    points = Objects.requireNonNull(installed, "installed");
  }

  /** Engines call this after writing a batch and before their commit statement. */
  public static void beforeCommit() {
    points.beforeCommit();
  }

  /** Engines call this when their commit statement returned, before acknowledging writers. */
  public static void afterCommit() {
    points.afterCommit();
  }
}
