package dev.oncely.examples.queue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.server.inbox.InboxHandler;
import dev.oncely.server.inbox.InboxMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.sqlite.SQLiteConfig;

/**
 * The job's work: ships the order a job names ({@code {"order":"o-1"}}) by adding a row to table
 * {@code shipments}. Deliberately <b>not</b> idempotent (no unique constraint): a second run for
 * one job would ship twice, so every row beyond one per job is a duplicate the consumer let
 * through. Thread-safe: one connection, one caller at a time.
 */
public final class Shipments implements InboxHandler, AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Connection db;

  private Shipments(Connection db) {
    this.db = db;
  }

  /**
   * Opens (or creates) the shipments table at {@code file}.
   *
   * @throws IllegalStateException if SQLite cannot open the file
   */
  public static Shipments open(Path file) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      SQLiteConfig config = new SQLiteConfig();
      config.setJournalMode(SQLiteConfig.JournalMode.WAL);
      config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
      Connection c = config.createConnection("jdbc:sqlite:" + file);
      try (Statement st = c.createStatement()) {
        st.executeUpdate("CREATE TABLE IF NOT EXISTS shipments (job TEXT NOT NULL,"
            + " order_ref TEXT NOT NULL)");
      }
      return new Shipments(c);
    } catch (SQLException | java.io.IOException e) {
      throw new IllegalStateException("cannot open the shipments " + file + ": "
          + e.getMessage(), e);
    }
  }

  /** Ships the order the job's payload names (one committed row). */
  @Override
  public synchronized void handle(InboxMessage job) throws Exception {
    String order = JSON.readTree(job.payload()).get("order").asText();
    try (PreparedStatement in = db.prepareStatement("INSERT INTO shipments(job, order_ref)"
        + " VALUES (?, ?)")) {
      in.setString(1, job.messageId());
      in.setString(2, order);
      in.executeUpdate();
    }
  }

  /** How many times job {@code jobId}'s order was shipped. */
  public synchronized int shipped(String jobId) throws SQLException {
    try (PreparedStatement st = db.prepareStatement("SELECT COUNT(*) FROM shipments"
        + " WHERE job = ?")) {
      st.setString(1, jobId);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  @Override
  public synchronized void close() throws SQLException {
    db.close();
  }
}
