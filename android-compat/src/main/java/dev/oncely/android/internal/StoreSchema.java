package dev.oncely.android.internal;

import android.content.ContentValues;
import android.database.Cursor;
import android.database.sqlite.SQLiteDatabase;
import android.database.sqlite.SQLiteStatement;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.spi.BusinessKey;
import dev.oncely.client.spi.DueClaim;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.StoredRows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The intent store's tables, version {@value #VERSION} (in {@code PRAGMA user_version}):
 *
 * <pre>
 * records(lookup BLOB PRIMARY KEY   -- RecordCodec.lookupKey: SHA-256 of scope, operation, key
 *         business BLOB             -- SHA-256 of a tag, scope, operation, business id; or NULL
 *         unfinished, created_sec, created_nano, expires_sec, expires_nano, revision
 *         record BLOB               -- the RecordCodec bytes, sealed when encrypted
 *         due_sec, due_nano)        -- DueClaim.indexTime: when an unfinished record is due
 *                                   --   (DueClaim.NEVER if never), NULL once finished
 * meta(name TEXT PRIMARY KEY, value BLOB) -- "encrypted" (one byte), "canary" (a sealed record)
 * </pre>
 *
 * No key, scope, operation or business id is kept in a column: only their hashes. Version 1 kept
 * them in clear (table {@code intents}); opening such a file migrates it in one transaction with
 * {@code secure_delete} on, so the old rows' pages are zeroed, then checkpoints the WAL. Version 2
 * had no due columns; opening such a file adds them and their index and fills them in from the
 * unfinished records, in one transaction.
 */
public final class StoreSchema {
  /** The schema version this class writes and reads. */
  public static final int VERSION = 3;

  private static final String DUE_INDEX = "CREATE INDEX records_due ON records"
      + " (due_sec, due_nano) WHERE due_sec IS NOT NULL";

  private StoreSchema() {}

  /**
   * Creates the schema in an empty database, migrates a version-1 one, or checks an existing one
   * against {@code canary}'s encryption setting; {@code codec} rewrites version-1 rows.
   *
   * @throws StoreCorruptedException if the file has a newer or unknown schema, or lacks its
   *     metadata
   * @throws StoreEncryptionException if the file's encryption does not match {@code canary}
   */
  public static void prepare(SQLiteDatabase db, String path, RecordCodec codec,
      KeyCanary canary) {
    int version = db.getVersion();
    if (version > VERSION) {
      throw new StoreCorruptedException("the intent store " + path + " has schema version "
          + version + "; this version reads " + VERSION);
    }
    if (version == 0 || version == 1) {
      db.beginTransaction();
      try {
        create(db, canary);
        if (version == 1) {
          migrateVersion1(db, path, codec);
        }
        db.setVersion(VERSION);
        db.setTransactionSuccessful();
      } finally {
        db.endTransaction();
      }
      if (version == 1) {
        pragma(db, "PRAGMA wal_checkpoint(TRUNCATE)");
      }
      return;
    }
    check(db, path, canary);
    if (version == 2) {
      db.beginTransaction();
      try {
        migrateVersion2(db, path, codec);
        db.setVersion(VERSION);
        db.setTransactionSuccessful();
      } finally {
        db.endTransaction();
      }
    }
  }

  /**
   * Adds the due columns and their index to a version-2 file and fills them in from each
   * unfinished record. A record that fails verification keeps no due time (no claim returns it;
   * the reads that meet it report it).
   */
  private static void migrateVersion2(SQLiteDatabase db, String path, RecordCodec codec) {
    db.execSQL("ALTER TABLE records ADD COLUMN due_sec INTEGER");
    db.execSQL("ALTER TABLE records ADD COLUMN due_nano INTEGER");
    db.execSQL(DUE_INDEX);
    List<byte[]> lookups = new ArrayList<>();
    List<Instant> due = new ArrayList<>();
    try (Cursor c = db.rawQuery("SELECT lookup, record FROM records WHERE unfinished = 1",
        null)) {
      while (c.moveToNext()) {
        byte[] lookup = c.getBlob(0);
        try {
          due.add(DueClaim.indexTime(StoredRows.decode(codec, "the intent store " + path,
              lookup, c.getBlob(1))));
          lookups.add(lookup);
        } catch (StoreCorruptedException | StoreEncryptionException e) {
          // Left without a due time; listing and reading the record report it.
        }
      }
    }
    SQLiteStatement update = db.compileStatement(
        "UPDATE records SET due_sec = ?, due_nano = ? WHERE lookup = ?");
    try {
      for (int i = 0; i < lookups.size(); i++) {
        bindDue(update, 1, due.get(i));
        update.bindBlob(3, lookups.get(i));
        update.executeUpdateDelete();
      }
    } finally {
      update.close();
    }
  }

  /**
   * Binds {@code due} ({@link DueClaim#indexTime}; null: none) to the due seconds and nanos at
   * {@code first} and the index after it.
   */
  public static void bindDue(SQLiteStatement s, int first, Instant due) {
    if (due == null) {
      s.bindNull(first);
      s.bindNull(first + 1);
    } else {
      s.bindLong(first, due.getEpochSecond());
      s.bindLong(first + 1, due.getNano());
    }
  }

  private static void create(SQLiteDatabase db, KeyCanary canary) {
    db.execSQL("CREATE TABLE records (lookup BLOB NOT NULL PRIMARY KEY, business BLOB,"
        + " unfinished INTEGER NOT NULL, created_sec INTEGER NOT NULL,"
        + " created_nano INTEGER NOT NULL, expires_sec INTEGER NOT NULL,"
        + " expires_nano INTEGER NOT NULL, revision INTEGER NOT NULL, record BLOB NOT NULL,"
        + " due_sec INTEGER, due_nano INTEGER)");
    db.execSQL("CREATE UNIQUE INDEX records_business ON records (business)"
        + " WHERE business IS NOT NULL");
    db.execSQL("CREATE INDEX records_unfinished ON records (created_sec, created_nano)"
        + " WHERE unfinished = 1");
    db.execSQL("CREATE INDEX records_finished_expiry ON records (expires_sec, expires_nano)"
        + " WHERE unfinished = 0");
    db.execSQL(DUE_INDEX);
    db.execSQL("CREATE TABLE meta (name TEXT NOT NULL PRIMARY KEY, value BLOB NOT NULL)");
    putMeta(db, "encrypted", new byte[] {(byte) (canary.encrypts() ? 1 : 0)});
    putMeta(db, "canary", canary.bytes());
  }

  private static void migrateVersion1(SQLiteDatabase db, String path, RecordCodec codec) {
    RecordCodec plain = new RecordCodec();
    pragma(db, "PRAGMA secure_delete=ON");
    try (Cursor c = db.rawQuery("SELECT record FROM intents", null)) {
      while (c.moveToNext()) {
        IntentRecord r = plain.decode(c.getBlob(0), "schema-1 row of " + path);
        ContentValues row = new ContentValues();
        row.put("lookup", RecordCodec.lookupKey(r.id()));
        if (r.businessId() != null) {
          row.put("business", BusinessKey.of(r));
        }
        row.put("unfinished", r.state().isTerminal() ? 0 : 1);
        row.put("created_sec", r.createdAt().getEpochSecond());
        row.put("created_nano", r.createdAt().getNano());
        row.put("expires_sec", r.expiresAt().getEpochSecond());
        row.put("expires_nano", r.expiresAt().getNano());
        row.put("revision", r.revision());
        row.put("record", codec.encode(r));
        Instant due = DueClaim.indexTime(r);
        if (due != null) {
          row.put("due_sec", due.getEpochSecond());
          row.put("due_nano", due.getNano());
        }
        db.insertOrThrow("records", null, row);
      }
    }
    db.execSQL("DROP TABLE intents");
  }

  private static void check(SQLiteDatabase db, String path, KeyCanary canary) {
    byte[] encrypted = meta(db, path, "encrypted");
    byte[] stored = meta(db, path, "canary");
    if (encrypted == null || stored == null || encrypted.length != 1) {
      throw new StoreCorruptedException("the intent store " + path
          + ": its metadata rows are missing or damaged");
    }
    canary.checkSetting(encrypted[0] == 1, "the intent store " + path);
    canary.check(stored, "the intent store " + path);
  }

  private static byte[] meta(SQLiteDatabase db, String path, String name) {
    try (Cursor c = db.rawQuery("SELECT value FROM meta WHERE name = ?", new String[] {name})) {
      return c.moveToFirst() ? c.getBlob(0) : null;
    } catch (android.database.SQLException e) {
      throw new StoreCorruptedException("the intent store " + path
          + " is an SQLite file but not an Oncely store (no metadata)", e);
    }
  }

  /** Runs a pragma that answers with a row (execSQL refuses those). */
  private static void pragma(SQLiteDatabase db, String sql) {
    try (Cursor c = db.rawQuery(sql, null)) {
      c.moveToFirst();
    }
  }

  private static void putMeta(SQLiteDatabase db, String name, byte[] value) {
    ContentValues row = new ContentValues();
    row.put("name", name);
    row.put("value", value);
    db.insertOrThrow("meta", null, row);
  }
}
