package dev.oncely.client.spi.sql;

import java.util.List;

/**
 * The schema of an Oncely SQLite store file, version {@value #VERSION}, the same whichever engine
 * writes it:
 *
 * <pre>
 * oncely_meta(name TEXT PRIMARY KEY, value BLOB NOT NULL)
 *   "schema"     one byte: {@link #VERSION}
 *   "encrypted"  one byte: 1 when records are sealed, 0 when not
 *   "canary"     a sealed record that detects a wrong key ({@link dev.oncely.client.spi.KeyCanary})
 *
 * intent(lookup   BLOB PRIMARY KEY  RecordCodec.lookupKey: SHA-256 of scope, operation and key
 *        business BLOB UNIQUE       BusinessKey.of: SHA-256 of scope, operation and business id;
 *                                   NULL without a business id
 *        open_s, open_ns            createdAt while the record is unfinished; NULL once terminal
 *        purge_s, purge_ns          expiresAt once the record is terminal; NULL while unfinished
 *        record   BLOB NOT NULL     the RecordCodec bytes (with their CRC-32), sealed when encrypted
 *        stub     BLOB              the UnfinishedStub while unfinished, or NULL when the engine
 *                                   keeps ids out of every column but record; NULL once terminal
 *        due_s, due_ns)             DueClaim.indexTime while unfinished (DueClaim.NEVER when never
 *                                   due); NULL once terminal
 * </pre>
 *
 * Times are epoch seconds and nanoseconds. No key, scope, operation or business id is kept in a
 * column in clear, only hashed. The derived columns are computed from the record when it is
 * written ({@link IntentRow}); the record decides, the columns only index it. Partial indexes keep
 * what each read walks small: {@link #UNFINISHED_INDEX} (unfinished records in creation order,
 * covering lookup and stub), {@link #DUE_INDEX} (by due time), {@link #DUE_UNKNOWN_INDEX}
 * (unfinished rows whose due time was never computed) and {@link #EXPIRY_INDEX} (terminal records
 * by expiry).
 *
 * <p>Files of older layouts carry no other version here: an engine that meets one brings it to
 * this schema when it opens it, in one transaction.
 */
public final class IntentTable {
  /** The schema version this rulebook describes, kept in {@code oncely_meta} as {@code schema}. */
  public static final int VERSION = 1;

  /** The metadata row holding {@link #VERSION}, one byte. */
  public static final String META_SCHEMA = "schema";
  /** The metadata row holding whether records are sealed, one byte (1 or 0). */
  public static final String META_ENCRYPTED = "encrypted";
  /** The metadata row holding the key canary's bytes. */
  public static final String META_CANARY = "canary";

  /** The metadata table. */
  public static final String CREATE_META =
      "CREATE TABLE oncely_meta (name TEXT PRIMARY KEY, value BLOB NOT NULL)";

  /** The record table. */
  public static final String CREATE_INTENT = "CREATE TABLE intent ("
      + " lookup BLOB NOT NULL PRIMARY KEY,"
      + " business BLOB UNIQUE,"
      + " open_s INTEGER, open_ns INTEGER,"
      + " purge_s INTEGER, purge_ns INTEGER,"
      + " record BLOB NOT NULL,"
      + " stub BLOB,"
      + " due_s INTEGER, due_ns INTEGER)";

  /**
   * The unfinished records in creation order, covering what listing their ids reads (lookup and
   * stub), so that listing reads this index and no table page.
   */
  public static final String UNFINISHED_INDEX = "CREATE INDEX intent_unfinished_ids"
      + " ON intent(open_s, open_ns, lookup, stub) WHERE open_s IS NOT NULL";

  /** The unfinished records by due time, which a claim of due records walks from the start. */
  public static final String DUE_INDEX = "CREATE INDEX intent_due"
      + " ON intent(due_s, due_ns) WHERE due_s IS NOT NULL";

  /**
   * The unfinished rows whose due time was never computed (written by a layout without the due
   * columns). Empty once an engine has filled them in, so checking it costs nothing however many
   * rows the store holds.
   */
  public static final String DUE_UNKNOWN_INDEX = "CREATE INDEX intent_due_unknown"
      + " ON intent(lookup) WHERE open_s IS NOT NULL AND due_s IS NULL";

  /** The terminal records by expiry, which a purge walks. */
  public static final String EXPIRY_INDEX =
      "CREATE INDEX intent_expiry ON intent(purge_s, purge_ns) WHERE purge_s IS NOT NULL";

  private static final List<String> CREATE = List.of(CREATE_META, CREATE_INTENT,
      UNFINISHED_INDEX, DUE_INDEX, DUE_UNKNOWN_INDEX, EXPIRY_INDEX);

  private IntentTable() {}

  /**
   * The statements that create the schema in an empty database, in order; run them in one
   * transaction, then insert the three metadata rows ({@link IntentSql#META_INSERT}).
   */
  public static List<String> create() {
    return CREATE;
  }
}
