package dev.oncely.persistence.crash;

import dev.oncely.client.spi.IntentStore;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.persistence.SqliteIntentStore;
import dev.oncely.persistence.StoreOptions;
import java.nio.file.Path;
import java.util.List;

/**
 * The durable engines the crash harness drives, by name. To put another engine under the kill
 * tests, add its name to {@link #NAMES} and a case to {@link #open}: the child JVM and the verifier
 * use nothing else.
 */
final class CrashEngines {
  /** Every engine the kill test runs against. */
  static final List<String> NAMES = List.of("sqlite", "mapdb");

  private CrashEngines() {}

  /** Opens (or creates) the store of {@code engine} at {@code path} with default options. */
  static IntentStore open(String engine, Path path) {
    return switch (engine) {
      case "sqlite" -> SqliteIntentStore.open(path, StoreOptions.defaults());
      case "mapdb" -> MapDbIntentStore.open(path, StoreOptions.defaults());
      default -> throw new IllegalArgumentException("unknown engine '" + engine + "'; known: "
          + NAMES);
    };
  }
}
