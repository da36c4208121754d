package dev.oncely.server.postgres;

import dev.oncely.postgres.ServerPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The tests' business table for inbox messages: one row per effect, with no unique constraint, so
 * a message whose effect committed twice shows as two rows instead of being masked by the
 * database. The inbox's messages live in schema {@value #SCHEMA}.
 */
final class InboxEffects {
  /** The schema of the inbox's store, apart from the app's tables. */
  static final String SCHEMA = "oncely_inbox";

  private InboxEffects() {}

  static void create(ServerPostgres db) {
    dev.oncely.postgres.PostgresIntentStore.migrate(db.pool(), SCHEMA);
    db.execute("CREATE TABLE IF NOT EXISTS inbox_effects (message_id text NOT NULL,"
        + " instance text NOT NULL)");
  }

  static void truncate(ServerPostgres db) {
    db.execute("TRUNCATE inbox_effects, " + SCHEMA + ".oncely_intent");
  }

  /** The effect of {@code messageId} by {@code instance}, in the caller's transaction. */
  static void insert(Connection c, String messageId, String instance) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(
        "INSERT INTO inbox_effects (message_id, instance) VALUES (?, ?)")) {
      st.setString(1, messageId);
      st.setString(2, instance);
      st.executeUpdate();
    }
  }

  /** How many effect rows of {@code messageId} are committed. */
  static int count(DataSource db, String messageId) throws SQLException {
    try (Connection c = db.getConnection(); PreparedStatement st = c.prepareStatement(
        "SELECT count(*) FROM inbox_effects WHERE message_id = ?")) {
      st.setString(1, messageId);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /** How many effect rows are committed in all. */
  static int total(DataSource db) throws SQLException {
    try (Connection c = db.getConnection(); PreparedStatement st = c.prepareStatement(
        "SELECT count(*) FROM inbox_effects"); ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** The instance whose effect of {@code messageId} committed. */
  static String instanceOf(DataSource db, String messageId) throws SQLException {
    try (Connection c = db.getConnection(); PreparedStatement st = c.prepareStatement(
        "SELECT instance FROM inbox_effects WHERE message_id = ?")) {
      st.setString(1, messageId);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }
}
