package dev.oncely.client.spi.sql;

import dev.oncely.client.IntentRecord;

/**
 * The text of every statement an engine runs on the {@linkplain IntentTable schema}, so each
 * engine reads and writes a row the same way. Parameters are positional ({@code ?}); a write's
 * parameters, in order, are {@link IntentRow#insertParameters} or {@link
 * IntentRow#updateParameters}. Times bind as epoch seconds, then nanoseconds.
 *
 * <p>Only syntax that SQLite 3.9.2 (Android API 24) understands: {@code INSERT OR IGNORE}, not
 * the upsert clause {@code ON CONFLICT DO NOTHING} of 3.24. For every row an engine writes (its
 * lookup key and record are never null) both skip exactly the rows whose lookup or business key
 * is taken.
 */
public final class IntentSql {
  /**
   * Inserts a record unless its lookup key or business key is taken (no row changes then; look
   * up which with {@link #LOOKUP_EXISTS} and {@link #BUSINESS_EXISTS}). Parameters: {@link
   * IntentRow#insertParameters}.
   */
  public static final String INSERT = "INSERT OR IGNORE INTO intent"
      + " (lookup, business, open_s, open_ns, purge_s, purge_ns, record, stub, due_s, due_ns)"
      + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

  /**
   * Replaces the record of one row and every column derived from it (the lookup and business keys
   * never change). Parameters: {@link IntentRow#updateParameters}. Run it after reading the row
   * with {@link #RECORD} in the same transaction and checking the revision the caller expects.
   */
  public static final String UPDATE = "UPDATE intent SET open_s = ?, open_ns = ?,"
      + " purge_s = ?, purge_ns = ?, record = ?, stub = ?, due_s = ?, due_ns = ?"
      + " WHERE lookup = ?";

  /**
   * Like {@link #UPDATE}, and moves the row to the end of the table (the next rowid): for a record
   * that shrank by its request (a finished one that dropped it, {@link #updateOf}). A row is
   * appended when it is created, at its full size, into pages SQLite packs full; shrunk in place
   * it would leave every such page about half empty for good (SQLite rebalances a page only when
   * two thirds of it are free, and appends never go back to it). Moved, its old page empties as
   * its neighbours finish and is reused, and finished rows sit packed at their short size.
   * Parameters: {@link IntentRow#updateParameters}.
   */
  public static final String UPDATE_AND_MOVE = "UPDATE intent SET"
      + " rowid = (SELECT max(rowid) + 1 FROM intent), open_s = ?, open_ns = ?,"
      + " purge_s = ?, purge_ns = ?, record = ?, stub = ?, due_s = ?, due_ns = ?"
      + " WHERE lookup = ?";

  /**
   * The statement that replaces {@code current}, the stored record, with {@code replacement}:
   * {@link #UPDATE_AND_MOVE} when the replacement drops the request the current record holds,
   * {@link #UPDATE} otherwise.
   */
  public static String updateOf(IntentRecord current, IntentRecord replacement) {
    return replacement.requestDropped() && !current.requestDropped() ? UPDATE_AND_MOVE : UPDATE;
  }

  /** The record bytes of the row with lookup key {@code ?}. */
  public static final String RECORD = "SELECT record FROM intent WHERE lookup = ?";

  /** A row when lookup key {@code ?} is taken. */
  public static final String LOOKUP_EXISTS = "SELECT 1 FROM intent WHERE lookup = ?";

  /** A row when business key {@code ?} is taken. */
  public static final String BUSINESS_EXISTS = "SELECT 1 FROM intent WHERE business = ?";

  /** Lookup key and record bytes of the row with business key {@code ?}. */
  public static final String BY_BUSINESS = "SELECT lookup, record FROM intent WHERE business = ?";

  /** Lookup key and record bytes of every unfinished row, oldest first. */
  public static final String UNFINISHED = "SELECT lookup, record FROM intent"
      + " WHERE open_s IS NOT NULL ORDER BY open_s, open_ns";

  /**
   * Lookup key and stub of every unfinished row, oldest first: only {@link
   * IntentTable#UNFINISHED_INDEX} is read. A null stub (a row written by a layout without the
   * column) is listed from its record.
   */
  public static final String UNFINISHED_STUBS = "SELECT lookup, stub FROM intent"
      + " WHERE open_s IS NOT NULL ORDER BY open_s, open_ns";

  /** Lookup key and record bytes of every terminal row. */
  public static final String FINISHED = "SELECT lookup, record FROM intent WHERE open_s IS NULL";

  /**
   * Lookup key, due seconds and nanoseconds and record bytes of the rows due at or before the
   * epoch second {@code ?}, earliest first, through {@link IntentTable#DUE_INDEX}. An engine
   * whose reads return rows as they step stops where {@link dev.oncely.client.spi.DueClaim#wants}
   * says; an engine that reads ahead adds {@link #LIMITED} with the claim's limit.
   */
  public static final String DUE = "SELECT lookup, due_s, due_ns, record FROM intent"
      + " WHERE due_s IS NOT NULL AND due_s <= ? ORDER BY due_s, due_ns";

  /** Appended to a query, bounds the rows it returns to {@code ?}. */
  public static final String LIMITED = " LIMIT ?";

  /**
   * Sets the due columns of the row with lookup key {@code ?} (the third parameter) if it still
   * holds the record bytes {@code ?} (the fourth): the correction of a claim that read the row.
   */
  public static final String SET_DUE_IF_RECORD = "UPDATE intent SET due_s = ?, due_ns = ?"
      + " WHERE lookup = ? AND record = ?";

  /** Sets the due columns of the row with lookup key {@code ?} (the third parameter). */
  public static final String SET_DUE = "UPDATE intent SET due_s = ?, due_ns = ?"
      + " WHERE lookup = ?";

  /**
   * Deletes the terminal rows that expired at or before an instant: parameters seconds, seconds,
   * nanoseconds.
   */
  public static final String PURGE = "DELETE FROM intent"
      + " WHERE purge_s IS NOT NULL AND (purge_s < ? OR (purge_s = ? AND purge_ns <= ?))";

  /** The value of metadata row {@code ?}. */
  public static final String META_READ = "SELECT value FROM oncely_meta WHERE name = ?";

  /** Inserts metadata row {@code ?} with value {@code ?}. */
  public static final String META_INSERT = "INSERT INTO oncely_meta(name, value) VALUES (?, ?)";

  private IntentSql() {}

  /**
   * Lookup key and record bytes of up to {@code rows} unfinished rows whose due time was never
   * computed, after lookup key {@code ?} in key order, through {@link
   * IntentTable#DUE_UNKNOWN_INDEX}: one page of filling them in.
   *
   * @throws IllegalArgumentException if {@code rows} is not positive
   */
  public static String unknownDue(int rows) {
    if (rows <= 0) {
      throw new IllegalArgumentException("rows must be positive, was " + rows);
    }
    return "SELECT lookup, record FROM intent"
        + " INDEXED BY intent_due_unknown WHERE open_s IS NOT NULL AND due_s IS NULL"
        + " AND lookup > ? ORDER BY lookup LIMIT " + rows;
  }
}
