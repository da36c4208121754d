package dev.oncely.android.internal;

import android.database.Cursor;
import android.database.sqlite.SQLiteDatabase;
import android.database.sqlite.SQLiteStatement;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.sql.IntentRows;
import dev.oncely.client.spi.sql.IntentSql;
import dev.oncely.client.spi.sql.IntentTable;
import java.util.List;

/**
 * Brings the intent store's file to the schema every Oncely SQLite engine shares ({@link
 * IntentTable}, its version in {@code oncely_meta}) and checks it. {@code PRAGMA user_version}
 * tells the layouts apart: {@value #VERSION} is the shared schema; 1 to 3 are this store's earlier
 * layouts, which opening converts, each in one transaction and without losing a row:
 *
 * <pre>
 * 1  intents(scope, operation, key, business_id, ..., record)   keys in clear, no metadata
 * 2  records(lookup, business, unfinished, created_sec, created_nano, expires_sec, expires_nano,
 *            revision, record), meta(name, value)               keys hashed, as in the schema
 * 3  version 2 with records.due_sec, due_nano and index records_due
 * </pre>
 *
 * A version-1 row is decoded in clear and written again with the store's codec, with {@code
 * secure_delete} on, so the old rows' pages are zeroed, then the WAL is checkpointed. A version-2
 * or -3 row keeps its lookup key, business key and record bytes as they are; its other columns
 * are computed from its record, and a row whose record fails verification (damage) is carried
 * over with the columns it had, so the reads that meet it report it. The old
 * metadata (encryption setting and key canary) moves to {@code oncely_meta} after the canary
 * accepted the store's key. A file with {@code user_version} 0 that holds the shared schema (as
 * the JVM engine writes it) is opened as it is.
 */
public final class StoreSchema {
  /** The {@code user_version} of a file in the shared schema. */
  public static final int VERSION = 4;

  /** Reads a metadata value of layouts 2 and 3. */
  private static final String LEGACY_META_READ = "SELECT value FROM meta WHERE name = ?";

  private StoreSchema() {}

  /**
   * Creates the schema in an empty database, converts an earlier layout, or checks an existing
   * file against {@code canary}'s encryption setting; {@code rows} writes the converted rows.
   *
   * @throws StoreCorruptedException if the file has a newer or unknown schema, or lacks its
   *     metadata
   * @throws StoreEncryptionException if the file's encryption does not match {@code canary}
   */
  public static void prepare(SQLiteDatabase db, String path, IntentRows rows, KeyCanary canary) {
    int version = db.getVersion();
    if (version > VERSION) {
      throw new StoreCorruptedException("the intent store " + path + " has schema version "
          + version + "; this version reads " + VERSION);
    }
    if (version == VERSION || (version == 0 && hasTable(db, "oncely_meta"))) {
      check(db, path, canary);
      return;
    }
    if (version == 2 || version == 3) {
      checkLegacyMeta(db, path, canary);
    }
    db.beginTransaction();
    try {
      for (String ddl : IntentTable.create()) {
        db.execSQL(ddl);
      }
      putMeta(db, IntentTable.META_SCHEMA, new byte[] {IntentTable.VERSION});
      if (version <= 1) {
        putMeta(db, IntentTable.META_ENCRYPTED, new byte[] {(byte) (canary.encrypts() ? 1 : 0)});
        putMeta(db, IntentTable.META_CANARY, canary.bytes());
      } else {
        db.execSQL("INSERT INTO oncely_meta(name, value) SELECT name, value FROM meta"
            + " WHERE name IN ('" + IntentTable.META_ENCRYPTED + "', '"
            + IntentTable.META_CANARY + "')");
      }
      if (version == 1) {
        convertVersion1(db, path, rows);
      } else if (version >= 2) {
        convertRecords(db, path, rows, version == 3);
      }
      db.setVersion(VERSION);
      db.setTransactionSuccessful();
    } finally {
      db.endTransaction();
    }
    if (version == 1) {
      pragma(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    }
  }

  /** Moves every version-1 row (keys in clear, plain codec) to the schema, then drops them. */
  private static void convertVersion1(SQLiteDatabase db, String path, IntentRows rows) {
    RecordCodec plain = new RecordCodec();
    pragma(db, "PRAGMA secure_delete=ON");
    try (Cursor c = db.rawQuery("SELECT record FROM intents", null)) {
      while (c.moveToNext()) {
        IntentRecord r = plain.decode(c.getBlob(0), "schema-1 row of " + path);
        insert(db, path, rows.row(r).insertParameters());
      }
    }
    db.execSQL("DROP TABLE intents");
  }

  /**
   * Moves every row of a version-2 or -3 table {@code records} to the schema, then drops it and
   * the old metadata table.
   */
  private static void convertRecords(SQLiteDatabase db, String path, IntentRows rows,
      boolean dueColumns) {
    String asItWas = "INSERT INTO intent"
        + " (lookup, business, open_s, open_ns, purge_s, purge_ns, record, stub, due_s, due_ns)"
        + " SELECT lookup, business,"
        + " CASE WHEN unfinished = 1 THEN created_sec END,"
        + " CASE WHEN unfinished = 1 THEN created_nano END,"
        + " CASE WHEN unfinished = 0 THEN expires_sec END,"
        + " CASE WHEN unfinished = 0 THEN expires_nano END,"
        + " record, NULL, " + (dueColumns ? "due_sec, due_nano" : "NULL, NULL")
        + " FROM records WHERE lookup = ?";
    SQLiteStatement copy = db.compileStatement(asItWas);
    try (Cursor c = db.rawQuery("SELECT lookup, record FROM records", null)) {
      while (c.moveToNext()) {
        byte[] lookup = c.getBlob(0);
        List<?> row;
        try {
          row = rows.copied(lookup, c.getBlob(1)).insertParameters();
        } catch (StoreCorruptedException | StoreEncryptionException e) {
          // Damage stays where the reads that meet it report it; its indexed columns come along.
          copy.clearBindings();
          copy.bindBlob(1, lookup);
          copy.executeUpdateDelete();
          continue;
        }
        insert(db, path, row);
      }
    } finally {
      copy.close();
    }
    db.execSQL("DROP TABLE records");
    db.execSQL("DROP TABLE meta");
  }

  /** Inserts one converted row; the old layout's own keys keep two rows from colliding. */
  private static void insert(SQLiteDatabase db, String path, List<?> parameters) {
    SQLiteStatement insert = db.compileStatement(IntentSql.INSERT);
    try {
      SqlParameters.bind(insert, parameters);
      if (insert.executeUpdateDelete() != 1) {
        throw new StoreCorruptedException("the intent store " + path
            + " holds two records with one lookup or business key");
      }
    } finally {
      insert.close();
    }
  }

  private static void check(SQLiteDatabase db, String path, KeyCanary canary) {
    byte[] schema = meta(db, path, IntentSql.META_READ, IntentTable.META_SCHEMA);
    byte[] encrypted = meta(db, path, IntentSql.META_READ, IntentTable.META_ENCRYPTED);
    byte[] stored = meta(db, path, IntentSql.META_READ, IntentTable.META_CANARY);
    if (schema == null || encrypted == null || stored == null || schema.length != 1
        || encrypted.length != 1) {
      throw new StoreCorruptedException("the intent store " + path
          + ": its metadata rows are missing or damaged");
    }
    if (schema[0] > IntentTable.VERSION || schema[0] < 1) {
      throw new StoreCorruptedException("the intent store " + path + " has schema version "
          + schema[0] + " in oncely_meta; this version reads " + IntentTable.VERSION);
    }
    canary.checkSetting(encrypted[0] == 1, "the intent store " + path);
    canary.check(stored, "the intent store " + path);
  }

  private static void checkLegacyMeta(SQLiteDatabase db, String path, KeyCanary canary) {
    byte[] encrypted = meta(db, path, LEGACY_META_READ, IntentTable.META_ENCRYPTED);
    byte[] stored = meta(db, path, LEGACY_META_READ, IntentTable.META_CANARY);
    if (encrypted == null || stored == null || encrypted.length != 1) {
      throw new StoreCorruptedException("the intent store " + path
          + ": its metadata rows are missing or damaged");
    }
    canary.checkSetting(encrypted[0] == 1, "the intent store " + path);
    canary.check(stored, "the intent store " + path);
  }

  /** The metadata value {@code name}, read with {@code sql}; null when there is none. */
  private static byte[] meta(SQLiteDatabase db, String path, String sql, String name) {
    try (Cursor c = db.rawQuery(sql, new String[] {name})) {
      return c.moveToFirst() ? c.getBlob(0) : null;
    } catch (android.database.SQLException e) {
      throw new StoreCorruptedException("the intent store " + path
          + " is an SQLite file but not an Oncely store (no metadata)", e);
    }
  }

  private static boolean hasTable(SQLiteDatabase db, String name) {
    try (Cursor c = db.rawQuery("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
        new String[] {name})) {
      return c.moveToFirst();
    }
  }

  /** Runs a pragma that answers with a row (execSQL refuses those). */
  private static void pragma(SQLiteDatabase db, String sql) {
    try (Cursor c = db.rawQuery(sql, null)) {
      c.moveToFirst();
    }
  }

  private static void putMeta(SQLiteDatabase db, String name, byte[] value) {
    SQLiteStatement insert = db.compileStatement(IntentSql.META_INSERT);
    try {
      insert.bindString(1, name);
      insert.bindBlob(2, value);
      insert.executeInsert();
    } finally {
      insert.close();
    }
  }
}
