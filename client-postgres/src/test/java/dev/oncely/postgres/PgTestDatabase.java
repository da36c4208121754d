package dev.oncely.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** A fresh database on the shared test server, with the schema applied and a small pool. */
final class PgTestDatabase implements AutoCloseable {
  final PostgresServer server;
  final String url;
  final HikariDataSource pool;

  private PgTestDatabase(PostgresServer server, String url, HikariDataSource pool) {
    this.server = server;
    this.url = url;
    this.pool = pool;
  }

  static PgTestDatabase create() {
    return create(PostgresServer.shared());
  }

  static PgTestDatabase create(PostgresServer server) {
    org.postgresql.ds.PGSimpleDataSource plain = server.newDatabase();
    PostgresIntentStore.migrate(plain);
    String url = server.url(plain.getDatabaseName());
    return new PgTestDatabase(server, url, pool(url, 16));
  }

  static HikariDataSource pool(String url, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername("postgres");
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(1);
    config.setConnectionTimeout(2_000);
    config.setInitializationFailTimeout(-1);
    return new HikariDataSource(config);
  }

  /** Deletes every intent row. */
  void truncate() {
    try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
      st.execute("TRUNCATE oncely_intent");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
