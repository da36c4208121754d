package dev.oncely.cli;

import dev.oncely.cli.internal.PostgresLocation;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.postgres.PostgresIntentStore;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Arrays;
import org.postgresql.PGProperty;
import org.postgresql.ds.PGSimpleDataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.util.PSQLException;

/**
 * Opens the {@code oncely-client-postgres} store named by a PostgreSQL URL
 * ({@link PostgresLocation}). The CLI becomes one more instance of the fleet with an owner name of
 * its own ({@code oncely-cli/USER@HOST/PID}): the store has no owner lock, so the app keeps
 * running, and every write is the store's fenced compare-and-set, refused while another instance
 * holds a live lease on the record. Before the store is built the opener checks, and reports as
 * typed errors, that the server answers, accepts the login, has the table {@code oncely_intent}
 * on the search path, and that the newest record opens with the given key (no key for a plain
 * store). It never creates or migrates the schema.
 */
final class PostgresStoreOpener implements StoreOpener {
  static final String ENGINE = "postgresql";
  private static final int DEFAULT_CONNECT_TIMEOUT_SECONDS = 5;

  /** The opener; the CLI builds it in, after the MapDB and SQLite ones. */
  PostgresStoreOpener() {}

  @Override
  public String engine() {
    return ENGINE;
  }

  @Override
  public boolean recognizes(String location) {
    return PostgresLocation.matches(location);
  }

  @Override
  public IntentStore open(String location, @Nullable StoreEncryption encryption) {
    return open(location, encryption, StoreCredentials.none());
  }

  @Override
  public IntentStore open(String location, @Nullable StoreEncryption encryption,
      StoreCredentials credentials) {
    PostgresLocation where = PostgresLocation.parse(location);
    String name = where.display();
    PGSimpleDataSource ds = dataSource(where, credentials);
    try (Connection c = ds.getConnection()) {
      checkTable(c, name);
      checkKey(c, name, encryption);
    } catch (SQLException e) {
      throw PgFailures.translate(e, name, where.user(), "connecting");
    }
    PostgresIntentStore store = PostgresIntentStore.builder(ds)
        .name(name)
        .owner(owner())
        .encryption(encryption)
        .build();
    return new CliPostgresStore(store, ds, name);
  }

  private static PGSimpleDataSource dataSource(PostgresLocation where, StoreCredentials credentials) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(where.jdbcUrl());
    if (!where.has(PGProperty.CONNECT_TIMEOUT)) {
      ds.setConnectTimeout(DEFAULT_CONNECT_TIMEOUT_SECONDS);
    }
    if (!where.has(PGProperty.APPLICATION_NAME)) {
      ds.setApplicationName("oncely-cli");
    }
    if (!where.has(PGProperty.LOG_SERVER_ERROR_DETAIL)) {
      // A server DETAIL can quote row values; the CLI never needs it.
      ds.setLogServerErrorDetail(false);
    }
    if (credentials.hasPassword()) {
      char[] password = credentials.password();
      ds.setPassword(new String(password));
      Arrays.fill(password, '\0');
    }
    return ds;
  }

  private static void checkTable(Connection c, String name) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT to_regclass('oncely_intent') IS NOT NULL,"
        + " current_database(), current_schemas(false)::text");
        ResultSet rs = st.executeQuery()) {
      rs.next();
      if (!rs.getBoolean(1)) {
        throw new StoreNotFoundException(name + ": database " + rs.getString(2)
            + " has no table oncely_intent on the search path " + rs.getString(3)
            + " (the CLI never creates it; if the app keeps it in another schema, add"
            + " ?currentSchema=THAT_SCHEMA to --store)");
      }
    }
  }

  /**
   * Opens the newest record with the key, so a wrong or missing key fails here, and refuses a key
   * for a plain store: the CLI's writes would be sealed with it and the app could not read them.
   */
  private static void checkKey(Connection c, String name, @Nullable StoreEncryption encryption)
      throws SQLException {
    try (PreparedStatement st = c.prepareStatement(
        "SELECT record FROM oncely_intent ORDER BY updated_at DESC LIMIT 1");
        ResultSet rs = st.executeQuery()) {
      if (!rs.next()) {
        return;
      }
      // A codec with a key refuses a plain record (StoreEncryptionException) by itself.
      new RecordCodec(encryption).decode(rs.getBytes(1), name + ": the newest record");
    }
  }

  private static String owner() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "unknown-host";
    }
    return "oncely-cli/" + System.getProperty("user.name") + "@" + host + "/"
        + ProcessHandle.current().pid();
  }

  /** Turns driver failures into the CLI's typed store exceptions, naming server and user only. */
  static final class PgFailures {
    private PgFailures() {}

    static StoreException translate(SQLException e, String name, @Nullable String user,
        String what) {
      String state = e.getSQLState() == null ? "" : e.getSQLState();
      String message = name + ": " + what + " failed: " + primaryMessage(e)
          + (state.isEmpty() ? "" : " (SQLState " + state + ")");
      if (state.startsWith("28") || state.equals("08004") || state.equals("42501")) {
        return new StoreAccessDeniedException(message + ". The server refused user "
            + (user == null ? "(the driver's default)" : user) + ": check the user in --store and"
            + " the password in PGPASSWORD or --password-file", e);
      }
      if (state.equals("3D000")) {
        StoreNotFoundException missing = new StoreNotFoundException(message
            + " (the CLI never creates a database)");
        missing.initCause(e);
        return missing;
      }
      if (unreachable(e)) {
        return new StoreUnreachableException(message + ". Check host and port in --store and that"
            + " the server accepts TCP connections from here", e);
      }
      return new StoreException(message, e);
    }

    private static boolean unreachable(SQLException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof SQLTransientConnectionException) {
          return true;
        }
        if (t instanceof SQLException s && s.getSQLState() != null) {
          String state = s.getSQLState();
          if (state.startsWith("08") || state.startsWith("57P")) {
            return true;
          }
        }
      }
      return false;
    }

    private static String primaryMessage(SQLException e) {
      if (e instanceof PSQLException p && p.getServerErrorMessage() != null) {
        return p.getServerErrorMessage().getMessage();
      }
      return e.getMessage();
    }
  }
}
