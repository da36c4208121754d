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
 * apply each version once. Applied versions are recorded in {@code oncely_schema_version}. A store
 * built with a PostgreSQL schema of its own keeps all three tables there, its versions included.
 */
public final class Schema {
  /** The newest schema version this code reads and writes. */
  public static final int CURRENT = 2;

  private static final List<String> FILES =
      List.of("V1__oncely_intents.sql", "V2__oncely_meta.sql");
  private static final long LOCK_ID = 0x6f6e63656c79L; // "oncely"
  private static final java.util.regex.Pattern NAME =
      java.util.regex.Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private Schema() {}

  /**
   * Returns {@code schema} if it is a name that needs no quoting in SQL (so it is written into
   * statements as it is).
   *
   * @throws IllegalArgumentException if it is not: lower-case letters, digits and underscores,
   *     not starting with a digit, at most 63 characters
   */
  public static String checkName(String schema) {
    java.util.Objects.requireNonNull(schema, "schema");
    if (!NAME.matcher(schema).matches()) {
      throw new IllegalArgumentException("schema must be a plain lower-case PostgreSQL name"
          + " (a-z, 0-9, _, not starting with a digit, at most 63 characters), was '" + schema
          + "'");
    }
    return schema;
  }

  /** {@code table} in {@code schema}, or unqualified (found on the search path) if it is null. */
  public static String qualified(String schema, String table) {
    return schema == null ? table : schema + "." + table;
  }

  /**
   * Applies every missing version in one transaction, in {@code schema} (created if missing) or,
   * if it is null, where the search path puts new tables; returns how many were applied.
   */
  public static int migrate(Connection c, String schema) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      int applied = 0;
      try (Statement st = c.createStatement()) {
        st.execute("SELECT pg_advisory_xact_lock(" + LOCK_ID + ")");
        if (schema != null) {
          // The scripts name their tables unqualified, as Flyway runs them: for this transaction
          // the schema is the only place they can land.
          st.execute("CREATE SCHEMA IF NOT EXISTS " + checkName(schema));
          st.execute("SET LOCAL search_path TO " + schema);
        }
        st.execute("CREATE TABLE IF NOT EXISTS oncely_schema_version (version integer PRIMARY KEY,"
            + " script text NOT NULL, installed_at timestamptz NOT NULL DEFAULT clock_timestamp())");
      }
      int installed = installedVersion(c, null);
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
  public static void check(Connection c, String name, String schema) throws SQLException {
    String migrate = schema == null ? "PostgresIntentStore.migrate(dataSource)"
        : "PostgresIntentStore.migrate(dataSource, \"" + schema + "\")";
    if (!tableExists(c, qualified(schema, "oncely_intent"))) {
      throw new StoreException(name + ": table " + qualified(schema, "oncely_intent")
          + " is missing; apply the schema with " + migrate + ", the builder's migrate(true), or"
          + " Flyway (classpath:db/oncely)");
    }
    if (!tableExists(c, qualified(schema, "oncely_meta"))) {
      throw new StoreException(name + ": table " + qualified(schema, "oncely_meta")
          + " (schema version 2) is missing; apply it with " + migrate + ", the builder's"
          + " migrate(true), or Flyway (classpath:db/oncely)");
    }
    if (tableExists(c, qualified(schema, "oncely_schema_version"))
        && installedVersion(c, schema) > CURRENT) {
      throw new StoreException(name + ": the schema was written by a newer version (schema "
          + installedVersion(c, schema) + ", this code knows " + CURRENT + ")");
    }
  }

  private static int installedVersion(Connection c, String schema) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT coalesce(max(version), 0) FROM "
            + qualified(schema, "oncely_schema_version"))) {
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
