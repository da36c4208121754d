package dev.oncely.postgres;

import com.zaxxer.hikari.HikariDataSource;

/**
 * The examples tests' door to client-postgres's package-private test fixture ({@link
 * PostgresServer}, from its test-jar): a fresh database on the server shared by the test JVM, and
 * pools onto it from any JVM (a child receiver connects with the URL alone).
 */
public final class ExamplesPostgres {
  private ExamplesPostgres() {}

  /** Creates an empty database on the shared server; returns its JDBC URL (superuser, trusted). */
  public static String newDatabase() {
    PostgresServer server = PostgresServer.shared();
    return server.url(server.newDatabase().getDatabaseName());
  }

  /** A new pool of at most {@code size} connections onto {@code url} (the caller closes it). */
  public static HikariDataSource pool(String url, int size) {
    return PgTestDatabase.pool(url, size);
  }
}
