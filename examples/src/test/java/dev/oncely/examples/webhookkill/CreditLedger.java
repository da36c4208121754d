package dev.oncely.examples.webhookkill;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.sqlite.SQLiteConfig;

/**
 * The kill test receiver's business data, in SQLite (one receiver) or PostgreSQL (a fleet): one
 * credit per event, the effect the handler makes, under a {@code UNIQUE (source, event_id)}
 * constraint; a balance per customer moved in the credit's transaction; and two counts of handler
 * runs per event: {@code runs_started}, committed on its own before any effect, so it survives a
 * SIGKILL at any point after it, and {@code runs_completed}, committed with the credit.
 *
 * <p>Two ways to credit, one per guarantee:
 * <ul>
 *   <li>{@link #credit}, for an at-least-once handler: its own transaction, the insert {@code ON
 *       CONFLICT DO NOTHING}. The constraint is the dedupe: a run repeated after a crash (its
 *       credit committed, its completion in the inbox not) inserts nothing and moves no balance,
 *       so {@code runs_completed >= credits}.
 *   <li>{@link #creditInTransaction}, for a handler whose effects commit with the message's
 *       completion ({@code PostgresInbox}): a plain insert in the caller's transaction, so a
 *       second commit for one event would fail on the constraint instead of being absorbed, and
 *       {@code runs_completed == credits}.
 * </ul>
 * Both engines take the same SQL ({@code INSERT ... ON CONFLICT}).
 *
 * <p>Thread-safe: SQLite through one connection, one caller at a time (SQLite writes one
 * transaction at a time anyway); PostgreSQL through the caller's pool.
 */
final class CreditLedger implements AutoCloseable {
  private static final String[] SCHEMA = {
      "CREATE TABLE IF NOT EXISTS credits (source TEXT NOT NULL, event_id TEXT NOT NULL,"
          + " customer TEXT NOT NULL, amount BIGINT NOT NULL, instance TEXT NOT NULL,"
          + " UNIQUE (source, event_id))",
      "CREATE TABLE IF NOT EXISTS balances (customer TEXT PRIMARY KEY, total BIGINT NOT NULL)",
      "CREATE TABLE IF NOT EXISTS runs_started (source TEXT NOT NULL, event_id TEXT NOT NULL,"
          + " runs BIGINT NOT NULL, PRIMARY KEY (source, event_id))",
      "CREATE TABLE IF NOT EXISTS runs_completed (source TEXT NOT NULL, event_id TEXT NOT NULL,"
          + " runs BIGINT NOT NULL, PRIMARY KEY (source, event_id))"};

  private final Db db;

  private CreditLedger(Db db) {
    this.db = db;
  }

  /**
   * Opens (or creates) the ledger in SQLite at {@code file}: write-ahead log, {@code
   * synchronous=FULL}, so a committed credit survives a SIGKILL.
   */
  static CreditLedger sqlite(Path file) throws SQLException {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
    } catch (java.io.IOException e) {
      throw new SQLException("cannot create the ledger's directory", e);
    }
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(10_000);
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
    config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
    Connection c = config.createConnection("jdbc:sqlite:" + file);
    CreditLedger ledger = new CreditLedger(new OneConnection(c));
    ledger.createTables();
    return ledger;
  }

  /** Opens (or creates) the ledger in the PostgreSQL database of {@code pool} (not closed). */
  static CreditLedger postgres(DataSource pool) throws SQLException {
    CreditLedger ledger = new CreditLedger(new Pool(pool));
    ledger.createTables();
    return ledger;
  }

  private void createTables() throws SQLException {
    db.run(c -> {
      try (Statement st = c.createStatement()) {
        for (String sql : SCHEMA) {
          st.executeUpdate(sql);
        }
      }
      return null;
    });
  }

  /** Counts one started run of the handler for the event, committed before any effect. */
  void countStart(String source, String eventId) throws SQLException {
    db.run(c -> {
      count(c, "runs_started", source, eventId);
      return null;
    });
  }

  /**
   * Credits {@code amount} to {@code customer} for the event, once, in a transaction of its own
   * (the credit, the balance and the completed run commit together); a credit already recorded
   * for the event changes no balance.
   *
   * @return whether this call made the effect (false: a repeated run, absorbed)
   */
  boolean credit(String source, String eventId, String customer, long amount, String instance)
      throws SQLException {
    return db.run(c -> {
      c.setAutoCommit(false);
      try {
        boolean made = insertCredit(c, source, eventId, customer, amount, instance, true);
        count(c, "runs_completed", source, eventId);
        c.commit();
        return made;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    });
  }

  /**
   * Credits {@code amount} to {@code customer} for the event and counts the completed run through
   * {@code connection}, in the caller's open transaction; a credit already recorded for the event
   * fails on the unique constraint.
   */
  static void creditInTransaction(Connection connection, String source, String eventId,
      String customer, long amount, String instance) throws SQLException {
    insertCredit(connection, source, eventId, customer, amount, instance, false);
    count(connection, "runs_completed", source, eventId);
  }

  private static boolean insertCredit(Connection c, String source, String eventId,
      String customer, long amount, String instance, boolean absorbRepeat) throws SQLException {
    int inserted;
    try (PreparedStatement st = c.prepareStatement("INSERT INTO credits (source, event_id,"
        + " customer, amount, instance) VALUES (?, ?, ?, ?, ?)"
        + (absorbRepeat ? " ON CONFLICT (source, event_id) DO NOTHING" : ""))) {
      st.setString(1, source);
      st.setString(2, eventId);
      st.setString(3, customer);
      st.setLong(4, amount);
      st.setString(5, instance);
      inserted = st.executeUpdate();
    }
    if (inserted == 1) {
      try (PreparedStatement st = c.prepareStatement("INSERT INTO balances (customer, total)"
          + " VALUES (?, ?) ON CONFLICT (customer)"
          + " DO UPDATE SET total = balances.total + excluded.total")) {
        st.setString(1, customer);
        st.setLong(2, amount);
        st.executeUpdate();
      }
    }
    return inserted == 1;
  }

  private static void count(Connection c, String table, String source, String eventId)
      throws SQLException {
    try (PreparedStatement st = c.prepareStatement("INSERT INTO " + table + " (source,"
        + " event_id, runs) VALUES (?, ?, 1) ON CONFLICT (source, event_id)"
        + " DO UPDATE SET runs = " + table + ".runs + 1")) {
      st.setString(1, source);
      st.setString(2, eventId);
      st.executeUpdate();
    }
  }

  /** How many credits (effects), started runs and completed runs are recorded. */
  Totals totals() throws SQLException {
    return db.run(c -> {
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT (SELECT COUNT(*) FROM credits),"
              + " (SELECT COALESCE(SUM(runs), 0) FROM runs_started),"
              + " (SELECT COALESCE(SUM(runs), 0) FROM runs_completed)")) {
        rs.next();
        return new Totals(rs.getLong(1), rs.getLong(2), rs.getLong(3));
      }
    });
  }

  /** Every credit row by {@link #key} of its event; an event with two rows fails. */
  Map<String, Credit> credits() throws SQLException {
    return db.run(c -> {
      Map<String, Credit> out = new TreeMap<>();
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery(
              "SELECT source, event_id, customer, amount, instance FROM credits")) {
        while (rs.next()) {
          Credit previous = out.put(key(rs.getString(1), rs.getString(2)),
              new Credit(rs.getString(3), rs.getLong(4), rs.getString(5)));
          if (previous != null) {
            throw new AssertionError("two credits for one event: " + previous);
          }
        }
      }
      return out;
    });
  }

  /** How many runs of the handler started, by {@link #key} of the event. */
  Map<String, Long> runsStarted() throws SQLException {
    return runs("runs_started");
  }

  /** How many runs of the handler committed their credit transaction, by {@link #key}. */
  Map<String, Long> runsCompleted() throws SQLException {
    return runs("runs_completed");
  }

  private Map<String, Long> runs(String table) throws SQLException {
    return db.run(c -> {
      Map<String, Long> out = new TreeMap<>();
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT source, event_id, runs FROM " + table)) {
        while (rs.next()) {
          out.put(key(rs.getString(1), rs.getString(2)), rs.getLong(3));
        }
      }
      return out;
    });
  }

  /** Every customer's balance. */
  Map<String, Long> balances() throws SQLException {
    return db.run(c -> {
      Map<String, Long> out = new TreeMap<>();
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT customer, total FROM balances")) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getLong(2));
        }
      }
      return out;
    });
  }

  /** How an event is named in {@link #credits} and the run counts: source, a space, its id. */
  static String key(String source, String eventId) {
    return source + " " + eventId;
  }

  @Override
  public void close() {
    db.close();
  }

  /** The counts of the ledger. */
  record Totals(long effects, long started, long completed) {}

  /** One credit: whom, how much, and which receiver instance made it. */
  record Credit(String customer, long amount, String instance) {}

  @FunctionalInterface
  private interface Work<R> {
    R apply(Connection c) throws SQLException;
  }

  private interface Db {
    <R> R run(Work<R> work) throws SQLException;

    void close();
  }

  private static final class OneConnection implements Db {
    private final Connection connection;

    OneConnection(Connection connection) {
      this.connection = connection;
    }

    @Override
    public synchronized <R> R run(Work<R> work) throws SQLException {
      return work.apply(connection);
    }

    @Override
    public synchronized void close() {
      try {
        connection.close();
      } catch (SQLException e) {
        throw new IllegalStateException("closing the ledger failed", e);
      }
    }
  }

  /** A pool the caller owns: borrowed per call, never closed here. */
  private static final class Pool implements Db {
    private final DataSource pool;

    Pool(DataSource pool) {
      this.pool = pool;
    }

    @Override
    public <R> R run(Work<R> work) throws SQLException {
      try (Connection c = pool.getConnection()) {
        return work.apply(c);
      }
    }

    @Override
    public void close() {}
  }
}
