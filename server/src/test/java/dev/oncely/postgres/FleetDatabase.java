package dev.oncely.postgres;

import com.zaxxer.hikari.HikariDataSource;

/**
 * The servlet tests' door to client-postgres's package-private test fixture ({@link
 * PostgresServer}, from its test-jar): one fresh database with the store's schema on the server
 * shared by the test JVM, and pools onto it, one per simulated fleet instance.
 */
public final class FleetDatabase {
  private final String url;

  private FleetDatabase(String url) {
    this.url = url;
  }

  /** A fresh database with the store's schema applied. */
  public static FleetDatabase create() {
    PostgresServer server = PostgresServer.shared();
    org.postgresql.ds.PGSimpleDataSource plain = server.newDatabase();
    PostgresIntentStore.migrate(plain);
    return new FleetDatabase(server.url(plain.getDatabaseName()));
  }

  /** A new pool of at most {@code size} connections onto this database (the caller closes it). */
  public HikariDataSource pool(int size) {
    return PgTestDatabase.pool(url, size);
  }
}
