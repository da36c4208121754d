package dev.oncely.spring.boot.internal;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.StoreEngine;
import dev.oncely.spring.boot.OncelyPropertyException;
import dev.oncely.spring.boot.server.OncelyServerProperties;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * One store the server half keeps of its own (the receipts, the inbox), as its {@code
 * <prefix>.store.*} properties name it, never shared with another store: a MapDB or SQLite file,
 * memory, or (through {@link OwnPostgresStore}) a schema on the application's DataSource. A file or
 * schema another store uses is refused at start-up naming both properties.
 *
 * @param prefix the properties' prefix, e.g. {@code oncely.server.store}
 * @param kept what the store keeps, plural, for messages ({@code receipts})
 * @param engine the engine the properties name
 * @param path the file of a mapdb or sqlite store
 * @param schema the schema of a postgres store
 * @param migrate whether a postgres store applies missing schema versions at start-up
 */
public record OwnStore(String prefix, String kept, OncelyServerProperties.Engine engine,
    Path path, String schema, boolean migrate) {
  /** Checks the components. */
  public OwnStore {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(kept, "kept");
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(schema, "schema");
  }

  /**
   * A file or schema another store uses.
   *
   * @param property the property that names it ({@code oncely.store.path})
   * @param location the file (normalized absolute path) or the schema
   * @param whose whose it is, for messages ({@code the client's intent store})
   * @param theirs what that store keeps, plural, for messages ({@code intents})
   */
  public record Taken(String property, Object location, String whose, String theirs) {}

  /**
   * Opens the mapdb, sqlite or memory store.
   *
   * @param taken the files other stores use
   * @throws OncelyPropertyException if the engine is postgres (this is reached only when the
   *     postgres configuration does not apply: no oncely-client-postgres), or the file is one of
   *     {@code taken}
   * @throws dev.oncely.client.StoreException if the file cannot be opened
   */
  public IntentStore openFile(List<Taken> taken) {
    if (engine == OncelyServerProperties.Engine.POSTGRES) {
      throw new OncelyPropertyException(prefix + ".engine", "postgres", "is postgres, which needs"
          + " oncely-client-postgres on the classpath and a DataSource bean; found none", null);
    }
    if (engine == OncelyServerProperties.Engine.MEMORY) {
      return new InMemoryIntentStore();
    }
    Path file = normalized(path);
    for (Taken t : taken) {
      if (file.equals(t.location())) {
        throw new OncelyPropertyException(prefix + ".path", path, "is " + t.whose() + " file too ("
            + t.property() + "); " + kept + " need a store of their own", null);
      }
    }
    StoreEngine files = engine == OncelyServerProperties.Engine.SQLITE ? StoreEngine.SQLITE
        : StoreEngine.MAPDB;
    return files.open(file);
  }

  /** {@code path} as the stores compare files: absolute and normalized. */
  public static Path normalized(Path path) {
    return path.toAbsolutePath().normalize();
  }
}
