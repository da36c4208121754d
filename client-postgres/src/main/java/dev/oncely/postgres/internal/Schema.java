package dev.oncely.postgres.internal;

import dev.oncely.client.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The store's schema: the versioned SQL files under {@code db/oncely/} (Flyway names), applied in
 * order by {@link #migrate} under a transaction-scoped advisory lock, so instances starting together
 * apply each version once. Applied versions are recorded in {@code oncely_schema_version}.
 */
public final class Schema {
  /** The newest schema version this code reads and writes. */
  public static final int CURRENT = 2;

  private static final List<String> FILES =
      List.of("V1__oncely_intents.sql", "V2__oncely_meta.sql");
  private static final long LOCK_ID = 0x6f6e63656c79L; // "oncely"

  private Schema() {}

  /** Applies every missing version in one transaction; returns how many were applied. */
  public static int migrate(Connection c) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      int applied = 0;
      try (Statement st = c.createStatement()) {
        st.execute("SELECT pg_advisory_xact_lock(" + LOCK_ID + ")");
        st.execute("CREATE TABLE IF NOT EXISTS oncely_schema_version (version integer PRIMARY KEY,"
            + " script text NOT NULL, installed_at timestamptz NOT NULL DEFAULT clock_timestamp())");
      }
      int installed = installedVersion(c);
      for (int v = installed + 1; v <= FILES.size(); v++) {
        String file = FILES.get(v - 1);
        try (Statement st = c.createStatement()) {
          st.execute(read(file));
        }
        try (PreparedStatement st = c.prepareStatement(
            "INSERT INTO oncely_schema_version (version, script) VALUES (?, ?)")) {
          st.setInt(1, v);
          st.setString(2, file);
          st.executeUpdate();
        }
        applied++;
      }
      c.commit();
      return applied;
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  /**
   * Checks that the schema is there and not newer than this code.
   *
   * @throws StoreException naming what to do when it is missing or newer
   */
  public static void check(Connection c, String name) throws SQLException {
    if (!tableExists(c, "oncely_intent")) {
      throw new StoreException(name + ": table oncely_intent is missing; apply the schema with"
          + " PostgresIntentStore.migrate(dataSource), the builder's migrate(true), or Flyway"
          + " (classpath:db/oncely)");
    }
    if (!tableExists(c, "oncely_meta")) {
      throw new StoreException(name + ": table oncely_meta (schema version 2) is missing; apply"
          + " it with PostgresIntentStore.migrate(dataSource), the builder's migrate(true), or"
          + " Flyway (classpath:db/oncely)");
    }
    if (tableExists(c, "oncely_schema_version") && installedVersion(c) > CURRENT) {
      throw new StoreException(name + ": the schema was written by a newer version (schema "
          + installedVersion(c) + ", this code knows " + CURRENT + ")");
    }
  }

  private static int installedVersion(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT coalesce(max(version), 0) FROM oncely_schema_version")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static boolean tableExists(Connection c, String table) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      st.setString(1, table);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  private static String read(String file) {
    String resource = "/db/oncely/" + file;
    try (InputStream in = Schema.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new StoreException("schema script " + resource + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new StoreException("reading schema script " + resource + " failed: " + e, e);
    }
  }
}
