package dev.oncely.postgres;

import com.zaxxer.hikari.HikariDataSource;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import javax.sql.DataSource;

/**
 * The server module's door to client-postgres's package-private test fixture ({@link
 * PostgresServer}, from its test-jar): a server of its own per test class, a fresh migrated
 * database per test, and the bytes a database keeps for a scan of what is in clear.
 */
public final class ReceiptPostgres implements AutoCloseable {
  private final PostgresServer server;

  private ReceiptPostgres(PostgresServer server) {
    this.server = server;
  }

  /** Starts a PostgreSQL server of its own (stopped and deleted by {@link #close()}). */
  public static ReceiptPostgres start() {
    return new ReceiptPostgres(PostgresServer.start());
  }

  /** A fresh database with the store's schema applied, behind a small pool. */
  public HikariDataSource newDatabase() {
    org.postgresql.ds.PGSimpleDataSource plain = server.newDatabase();
    PostgresIntentStore.migrate(plain);
    return PgTestDatabase.pool(server.url(plain.getDatabaseName()), 16);
  }

  /**
   * Every byte {@code database} keeps for {@code table}: each row's columns (bytea as its bytes,
   * the rest as text), then, after a checkpoint wrote every page, the database's own files and the
   * server's write-ahead log.
   */
  public static byte[] bytesAtRest(DataSource database, String table) throws Exception {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    try (Connection c = database.getConnection(); Statement st = c.createStatement()) {
      try (ResultSet rs = st.executeQuery("SELECT * FROM " + table)) {
        ResultSetMetaData meta = rs.getMetaData();
        while (rs.next()) {
          for (int i = 1; i <= meta.getColumnCount(); i++) {
            byte[] value = meta.getColumnType(i) == Types.BINARY ? rs.getBytes(i)
                : String.valueOf(rs.getString(i)).getBytes(StandardCharsets.UTF_8);
            if (value != null) {
              all.write(value);
            }
          }
        }
      }
      st.execute("CHECKPOINT");
      Path data = Path.of(single(st, "SHOW data_directory"));
      String oid = single(st, "SELECT oid FROM pg_database WHERE datname = current_database()");
      all.write(dev.oncely.server.FileBytes.under(data.resolve("base").resolve(oid)));
      all.write(dev.oncely.server.FileBytes.under(data.resolve("pg_wal")));
    }
    return all.toByteArray();
  }

  private static String single(Statement st, String sql) throws SQLException {
    try (ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  @Override
  public void close() {
    server.close();
  }
}
