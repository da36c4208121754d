package dev.oncely.benchmarks.internal;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.persistence.SqliteIntentStore;
import dev.oncely.persistence.StoreOptions;
import java.nio.file.Path;

/** The store engines under test, opened with their default options. */
public enum Engine {
  MEMORY("in-memory"),
  MAPDB("MapDB"),
  SQLITE("SQLite");

  private final String label;

  Engine(String label) {
    this.label = label;
  }

  /** The name used in result rows. */
  public String label() {
    return label;
  }

  /** Whether the engine writes to disk. */
  public boolean durable() {
    return this != MEMORY;
  }

  /** Opens (or creates) this engine's store inside {@code dir}. */
  public IntentStore open(Path dir) {
    return switch (this) {
      case MEMORY -> new InMemoryIntentStore();
      case MAPDB -> MapDbIntentStore.open(dir.resolve("intents.db"), StoreOptions.defaults());
      case SQLITE -> SqliteIntentStore.open(dir.resolve("intents.sqlite"), StoreOptions.defaults());
    };
  }
}
