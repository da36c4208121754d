package dev.oncely.examples.queue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.sqlite.SQLiteConfig;

/**
 * A job table in SQLite used as a queue, the way many apps run background jobs without a broker,
 * and with the same at-least-once delivery as SQS or a Kafka consumer group:
 *
 * <ul>
 *   <li>{@link #enqueue} adds a job. A producer that retries may add the same job twice: the table
 *       does not deduplicate (nor do most queues).
 *   <li>{@link #claim} hands out the oldest visible job and hides it for the visibility timeout.
 *   <li>{@link #acknowledge} deletes it, once the consumer is done.
 * </ul>
 *
 * A consumer that dies (or fails) after its claim and before its acknowledgement leaves the job
 * hidden only until the timeout ends; then it is claimed again: <b>redelivered</b>, to this or
 * another consumer, with {@link Job#deliveries()} one higher. That redelivery is what {@link
 * JobConsumer} absorbs with one {@code Inbox.once} call.
 *
 * <p>Durable ({@code synchronous=FULL}): a job enqueued, claimed or acknowledged survives a SIGKILL.
 * Thread-safe: one connection, one caller at a time.
 */
public final class JobTable implements AutoCloseable {
  private static final String SCHEMA = "CREATE TABLE IF NOT EXISTS jobs ("
      + " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
      + " id TEXT NOT NULL,"
      + " payload BLOB NOT NULL,"
      + " visible_at INTEGER NOT NULL,"
      + " deliveries INTEGER NOT NULL)";

  private final Connection db;
  private final Clock clock;
  private final Duration visibility;

  private JobTable(Connection db, Clock clock, Duration visibility) {
    this.db = db;
    this.clock = clock;
    this.visibility = visibility;
  }

  /**
   * Opens (or creates) the job table at {@code file}; a claimed job is hidden for {@code
   * visibility}, then redelivered unless acknowledged.
   *
   * @throws IllegalStateException if SQLite cannot open the file
   */
  public static JobTable open(Path file, Clock clock, Duration visibility) {
    Objects.requireNonNull(clock, "clock");
    if (visibility.isNegative() || visibility.isZero()) {
      throw new IllegalArgumentException("visibility must be positive, was " + visibility);
    }
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      SQLiteConfig config = new SQLiteConfig();
      config.setBusyTimeout(10_000);
      config.setJournalMode(SQLiteConfig.JournalMode.WAL);
      config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
      config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
      Connection c = config.createConnection("jdbc:sqlite:" + file);
      try (Statement st = c.createStatement()) {
        st.executeUpdate(SCHEMA);
      }
      c.setAutoCommit(false);
      return new JobTable(c, clock, visibility);
    } catch (SQLException | java.io.IOException e) {
      throw new IllegalStateException("cannot open the job table " + file + ": "
          + e.getMessage(), e);
    }
  }

  /** One delivery of a job: its id, its payload, and how often it was claimed so far. */
  public record Job(long seq, String id, byte[] payload, int deliveries) {
    /** The payload as UTF-8 text. */
    public String text() {
      return new String(payload, StandardCharsets.UTF_8);
    }
  }

  /** Adds job {@code id} with {@code payload} (UTF-8), visible at once. */
  public synchronized void enqueue(String id, String payload) {
    write(db -> {
      try (PreparedStatement in = db.prepareStatement("INSERT INTO jobs(id, payload, visible_at,"
          + " deliveries) VALUES (?, ?, ?, 0)")) {
        in.setString(1, id);
        in.setBytes(2, payload.getBytes(StandardCharsets.UTF_8));
        in.setLong(3, clock.millis());
        in.executeUpdate();
      }
      return null;
    });
  }

  /** Claims the oldest visible job, hiding it for the visibility timeout; empty if none is. */
  public synchronized Optional<Job> claim() {
    return write(db -> {
      long now = clock.millis();
      Job job;
      try (PreparedStatement st = db.prepareStatement("SELECT seq, id, payload, deliveries"
          + " FROM jobs WHERE visible_at <= ? ORDER BY seq LIMIT 1")) {
        st.setLong(1, now);
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
          job = new Job(rs.getLong(1), rs.getString(2), rs.getBytes(3), rs.getInt(4) + 1);
        }
      }
      try (PreparedStatement up = db.prepareStatement("UPDATE jobs SET visible_at = ?,"
          + " deliveries = ? WHERE seq = ?")) {
        up.setLong(1, now + visibility.toMillis());
        up.setInt(2, job.deliveries());
        up.setLong(3, job.seq());
        up.executeUpdate();
      }
      return Optional.of(job);
    });
  }

  /** Deletes the job {@code job} is a delivery of: it is done and never delivered again. */
  public synchronized void acknowledge(Job job) {
    write(db -> {
      try (PreparedStatement del = db.prepareStatement("DELETE FROM jobs WHERE seq = ?")) {
        del.setLong(1, job.seq());
        del.executeUpdate();
      }
      return null;
    });
  }

  /** How many jobs are in the table (visible or hidden): not yet acknowledged. */
  public synchronized int size() {
    return write(db -> {
      try (Statement st = db.createStatement();
          ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM jobs")) {
        rs.next();
        return rs.getInt(1);
      }
    });
  }

  @Override
  public synchronized void close() {
    try {
      db.close();
    } catch (SQLException e) {
      throw new IllegalStateException("closing the job table failed", e);
    }
  }

  private interface Work<T> {
    T run(Connection db) throws SQLException;
  }

  private <T> T write(Work<T> work) {
    try {
      T result = work.run(db);
      db.commit();
      return result;
    } catch (SQLException e) {
      try {
        db.rollback();
      } catch (SQLException ignored) {
        // The connection is broken; the next call reports it.
      }
      throw new IllegalStateException("the job table failed: " + e.getMessage(), e);
    }
  }
}
