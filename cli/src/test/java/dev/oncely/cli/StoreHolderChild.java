package dev.oncely.cli;

import dev.oncely.client.IntentStore;
import dev.oncely.persistence.StoreEngine;
import java.nio.file.Path;

/**
 * A child JVM standing in for the app: opens a store (args: engine, path), prints {@code OPEN pid}
 * and keeps it open until its stdin closes or it is killed.
 */
public final class StoreHolderChild {
  private StoreHolderChild() {}

  public static void main(String[] args) throws Exception {
    try (IntentStore store = StoreEngine.parse(args[0]).open(Path.of(args[1]))) {
      System.out.println("OPEN " + ProcessHandle.current().pid());
      System.out.flush();
      while (System.in.read() >= 0) {
        continue;
      }
    }
  }
}
