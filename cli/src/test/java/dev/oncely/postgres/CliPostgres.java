package dev.oncely.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The CLI tests' door to client-postgres's package-private test fixture ({@link PostgresServer},
 * from its test-jar): one server per test JVM, a fresh database per call.
 */
public final class CliPostgres {
  private final PostgresServer server;
  private final PGSimpleDataSource dataSource;

  private CliPostgres(PostgresServer server, PGSimpleDataSource dataSource) {
    this.server = server;
    this.dataSource = dataSource;
  }

  /** A fresh database on the shared server, with the store's schema applied. */
  public static CliPostgres migrated() {
    CliPostgres db = empty();
    PostgresIntentStore.migrate(db.dataSource);
    return db;
  }

  /** A fresh database on the shared server, without the store's schema. */
  public static CliPostgres empty() {
    PostgresServer server = PostgresServer.shared();
    return new CliPostgres(server, server.newDatabase());
  }

  /** The superuser's data source on this database (no password: the fixture trusts loopback). */
  public DataSource dataSource() {
    return dataSource;
  }

  public String database() {
    return dataSource.getDatabaseName();
  }

  public int port() {
    return server.port();
  }

  /**
   * Creates login role {@code role} with {@code password} and makes the server ask it for the
   * password over TCP ({@code scram-sha-256} in {@code pg_hba.conf}, written by the server itself
   * through {@code COPY ... TO}); every other role stays trusted. Returns once the server reloaded.
   */
  public void requirePassword(String role, String password) {
    execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
    execute("COPY (SELECT line FROM (VALUES (1, 'local all all trust'),"
        + " (2, 'host all " + role + " 127.0.0.1/32 scram-sha-256'),"
        + " (3, 'host all all 127.0.0.1/32 trust'), (4, 'host all all ::1/128 trust')) v(n, line)"
        + " ORDER BY n) TO '" + hbaFile() + "'");
    execute("SELECT pg_reload_conf()");
    long until = System.nanoTime() + 20_000_000_000L;
    while (true) {
      PGSimpleDataSource probe = new PGSimpleDataSource();
      probe.setURL("jdbc:postgresql://127.0.0.1:" + port() + "/" + database());
      probe.setUser(role);
      probe.setPassword("not-" + password);
      try (Connection c = probe.getConnection()) {
        if (System.nanoTime() > until) {
          throw new IllegalStateException("the server did not start asking " + role
              + " for a password");
        }
        Thread.onSpinWait();
      } catch (SQLException refused) {
        return;
      }
    }
  }

  private String hbaFile() {
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SHOW hba_file")) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Runs {@code sql} as the superuser on this database. */
  public void execute(String sql) {
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("SQL failed: " + e.getMessage(), e);
    }
  }
}
