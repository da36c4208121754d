package dev.oncely.persistence;

import java.nio.file.Path;

/**
 * A child JVM that opens a SQLite store, prints {@code LOCKED} and keeps it open until its stdin
 * closes or it is killed: the "other process" of the owner-lock tests.
 */
public final class LockHolderChild {
  private LockHolderChild() {}

  public static void main(String[] args) throws Exception {
    SqliteIntentStore store = SqliteIntentStore.open(Path.of(args[0]));
    try {
      System.out.println("LOCKED " + ProcessHandle.current().pid());
      System.out.flush();
      while (System.in.read() >= 0) {
        continue;
      }
    } finally {
      store.close();
    }
  }
}
