package dev.oncely.examples.shop;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.sqlite.SQLiteConfig;

/**
 * The shop's business data: its payments, in SQLite (write-ahead log, {@code synchronous=FULL}),
 * so a payment that {@link #charge} returned is on disk and survives a SIGKILL or a power cut.
 *
 * <p><b>One payment per receipt.</b> Every payment row carries the status token of the receipt
 * whose request made it, under a {@code UNIQUE} constraint. That row is the shop's recovery point
 * written in the same transaction as the effect: whatever happened to the receipt (the server
 * died after this commit and before the receipt learned of it, or a takeover ran the handler
 * again while a frozen owner still ran), a second charge for the same receipt finds the first
 * one and returns it instead ({@link Charge#created()} false; counted as {@code repeatsFound} in
 * the stats). Orders are deliberately not unique: two payments for one order are what a client
 * that mints a new key per retry causes, and the stats count them as duplicates.
 *
 * <p>Thread-safe: one connection, one caller at a time (SQLite writes one transaction at a time
 * anyway). One shop process per file: the shop opens it only after it holds its receipt store's
 * owner lock.
 */
final class PaymentLedger implements AutoCloseable {
  private static final String SCHEMA = "CREATE TABLE IF NOT EXISTS payments ("
      + " id TEXT PRIMARY KEY,"
      + " receipt TEXT NOT NULL UNIQUE,"
      + " key_hash TEXT NOT NULL,"
      + " amount INTEGER NOT NULL,"
      + " currency TEXT NOT NULL,"
      + " order_ref TEXT,"
      + " customer TEXT,"
      + " provider_charge TEXT,"
      + " created_at INTEGER NOT NULL)";
  private static final String COUNTERS = "CREATE TABLE IF NOT EXISTS counters ("
      + " name TEXT PRIMARY KEY, value INTEGER NOT NULL)";
  private static final String COLUMNS = "id, receipt, key_hash, amount, currency, order_ref,"
      + " customer, provider_charge, created_at";
  private static final String REPEATS = "repeats_found";

  private final Path file;
  private final Connection db;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();

  private PaymentLedger(Path file, Connection db, Clock clock) {
    this.file = file;
    this.db = db;
    this.clock = clock;
  }

  /**
   * Opens (or creates) the ledger at {@code file}.
   *
   * @throws LedgerException if SQLite cannot open it or refuses write-ahead logging
   */
  static PaymentLedger open(Path file, Clock clock) {
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
        st.executeUpdate(COUNTERS);
      }
      c.setAutoCommit(false);
      return new PaymentLedger(file, c, clock);
    } catch (SQLException | java.io.IOException e) {
      throw new LedgerException("cannot open the payments ledger " + file + ": " + e.getMessage(),
          e);
    }
  }

  /** The result of {@link #charge}: the receipt's payment, and whether this call made it. */
  record Charge(Payment payment, boolean created) {}

  /**
   * Makes the payment of {@code receipt} in one transaction, or returns the one it already has.
   *
   * @throws LedgerException if SQLite failed; nothing was committed then
   */
  synchronized Charge charge(String receipt, String keyHash, PaymentRequest request,
      String providerCharge) {
    try {
      Optional<Payment> existing = find("receipt", receipt);
      if (existing.isPresent()) {
        try (PreparedStatement up = db.prepareStatement("INSERT INTO counters(name, value)"
            + " VALUES (?, 1) ON CONFLICT(name) DO UPDATE SET value = value + 1")) {
          up.setString(1, REPEATS);
          up.executeUpdate();
        }
        db.commit();
        return new Charge(existing.get(), false);
      }
      Payment p = new Payment("pay_" + HexFormat.of().formatHex(randomBytes()), receipt, keyHash,
          request.amount(), request.currency(), request.order(), request.customer(),
          providerCharge, Instant.ofEpochMilli(clock.millis()));
      try (PreparedStatement in = db.prepareStatement("INSERT INTO payments(" + COLUMNS
          + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
        in.setString(1, p.id());
        in.setString(2, p.receipt());
        in.setString(3, p.keyHash());
        in.setLong(4, p.amount());
        in.setString(5, p.currency());
        in.setString(6, p.order());
        in.setString(7, p.customer());
        in.setString(8, p.providerCharge());
        in.setLong(9, p.createdAt().toEpochMilli());
        in.executeUpdate();
      }
      db.commit();
      return new Charge(p, true);
    } catch (SQLException e) {
      rollback();
      throw new LedgerException("the payment was not committed: " + e.getMessage(), e);
    }
  }

  /** The payment of the receipt whose status token is {@code receipt}, if it was made. */
  synchronized Optional<Payment> byReceipt(String receipt) {
    return read(() -> find("receipt", receipt));
  }

  /** The payment {@code id}, if it exists. */
  synchronized Optional<Payment> byId(String id) {
    return read(() -> find("id", id));
  }

  /** Payments in total, per key hash and per order, and the repeats that found their payment. */
  synchronized LedgerCounts counts() {
    return read(() -> {
      long total = 0;
      Map<String, Long> perKey = new TreeMap<>();
      Map<String, Long> perOrder = new TreeMap<>();
      try (Statement st = db.createStatement();
          ResultSet rs = st.executeQuery("SELECT key_hash, order_ref FROM payments")) {
        while (rs.next()) {
          total++;
          perKey.merge(rs.getString(1), 1L, Long::sum);
          String order = rs.getString(2);
          if (order != null) {
            perOrder.merge(order, 1L, Long::sum);
          }
        }
      }
      long repeats = 0;
      try (PreparedStatement st = db.prepareStatement("SELECT value FROM counters WHERE name = ?")) {
        st.setString(1, REPEATS);
        try (ResultSet rs = st.executeQuery()) {
          repeats = rs.next() ? rs.getLong(1) : 0;
        }
      }
      return new LedgerCounts(total, perKey, perOrder, repeats);
    });
  }

  /**
   * Deletes every payment and counter.
   *
   * @return how many payments were deleted
   */
  synchronized int reset() {
    try (Statement st = db.createStatement()) {
      int deleted = st.executeUpdate("DELETE FROM payments");
      st.executeUpdate("DELETE FROM counters");
      db.commit();
      return deleted;
    } catch (SQLException e) {
      rollback();
      throw new LedgerException("the reset was not committed: " + e.getMessage(), e);
    }
  }

  /** Closes the connection. */
  @Override
  public synchronized void close() {
    try {
      db.close();
    } catch (SQLException e) {
      throw new LedgerException("closing the payments ledger " + file + " failed", e);
    }
  }

  /**
   * What {@link #counts()} returns.
   *
   * @param payments payments in total
   * @param perKeyHash payments per idempotency key hash, sorted
   * @param perOrder payments per order reference, sorted (payments without one are left out)
   * @param repeatsFound handler runs that found their receipt's payment made and returned it
   */
  record LedgerCounts(long payments, Map<String, Long> perKeyHash, Map<String, Long> perOrder,
      long repeatsFound) {
    LedgerCounts {
      perKeyHash = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(perKeyHash));
      perOrder = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(perOrder));
    }
  }

  private Optional<Payment> find(String column, String value) throws SQLException {
    try (PreparedStatement st = db.prepareStatement("SELECT " + COLUMNS
        + " FROM payments WHERE " + column + " = ?")) {
      st.setString(1, value);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(new Payment(rs.getString(1), rs.getString(2), rs.getString(3),
            rs.getLong(4), rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8),
            Instant.ofEpochMilli(rs.getLong(9))));
      }
    }
  }

  /** Work on the ledger's connection, in the transaction {@link #transaction} opens. */
  interface Work<T> {
    T run(Connection db) throws SQLException;
  }

  /**
   * Runs {@code work} as one transaction on the ledger's connection, one caller at a time with
   * the payments: committed when it returns, rolled back when it throws. For the other tables of
   * the shop's business data ({@link WebhookLedger}): SQLite lets one connection write at a time,
   * so they share this one.
   *
   * @throws LedgerException naming {@code what} if SQLite failed; nothing was committed then
   */
  synchronized <T> T transaction(String what, Work<T> work) {
    try {
      T result = work.run(db);
      db.commit();
      return result;
    } catch (SQLException e) {
      rollback();
      throw new LedgerException(what + " failed: " + e.getMessage(), e);
    }
  }

  private interface Read<T> {
    T run() throws SQLException;
  }

  private <T> T read(Read<T> read) {
    try {
      T result = read.run();
      db.commit(); // ends the read transaction, so the write-ahead log can be checkpointed
      return result;
    } catch (SQLException e) {
      rollback();
      throw new LedgerException("reading the payments ledger failed: " + e.getMessage(), e);
    }
  }

  private byte[] randomBytes() {
    byte[] b = new byte[12];
    random.nextBytes(b);
    return b;
  }

  private void rollback() {
    try {
      db.rollback();
    } catch (SQLException ignored) {
      // The connection is broken; the next call reports it.
    }
  }

  /** The ledger could not be read or written; nothing was committed by the failing call. */
  static final class LedgerException extends RuntimeException {
    LedgerException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
