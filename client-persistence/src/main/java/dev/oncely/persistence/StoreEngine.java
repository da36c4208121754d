package dev.oncely.persistence;

import dev.oncely.client.IntentStore;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * The durable engines, by name, and which one is the default.
 *
 * <p>{@link #MAPDB} is the default: it is the engine this project is specified on; with its own
 * journal (one checksummed append and one force per group commit) and two MapDB copies it held
 * the durability guarantee in every kill and power-loss test (kills inside its journal append,
 * MapDB's writes and its checkpoints included). {@link #SQLITE} holds the same guarantee, takes
 * less than half the disk space and has no checkpoint pauses; both commit at about one fsync
 * per group commit (the measurements are in the README).
 */
public enum StoreEngine {
  /** {@link MapDbIntentStore}: a journal, two MapDB copies and a control file. The default. */
  MAPDB {
    @Override
    public IntentStore open(Path file, StoreOptions options) {
      return MapDbIntentStore.open(file, options);
    }
  },
  /** {@link SqliteIntentStore}: SQLite in WAL mode with {@code synchronous=FULL}. */
  SQLITE {
    @Override
    public IntentStore open(Path file, StoreOptions options) {
      return SqliteIntentStore.open(file, options);
    }
  };

  /** The engine {@code open} calls without an explicit choice should use: {@link #MAPDB}. */
  public static StoreEngine defaultEngine() {
    return MAPDB;
  }

  /**
   * Opens (or creates) this engine's store at {@code file}. See the engine's {@code open} for what
   * it throws: {@code StoreLockedException}, {@code StoreCorruptedException},
   * {@code StoreEncryptionException} or {@code StoreException}.
   */
  public abstract IntentStore open(Path file, StoreOptions options);

  /** Opens (or creates) this engine's store at {@code file} with {@link StoreOptions#defaults()}. */
  public IntentStore open(Path file) {
    return open(file, StoreOptions.defaults());
  }

  /**
   * Returns the engine named {@code name} ({@code mapdb} or {@code sqlite}, any case).
   *
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException naming the value and the known engines otherwise
   */
  public static StoreEngine parse(String name) {
    Objects.requireNonNull(name, "name");
    for (StoreEngine engine : values()) {
      if (engine.name().equalsIgnoreCase(name.trim())) {
        return engine;
      }
    }
    throw new IllegalArgumentException(
        "unknown store engine '" + name + "'; known: mapdb, sqlite");
  }

  /** The engine's name in lower case, as {@link #parse} accepts it. */
  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
