package dev.oncely.android;

import android.database.Cursor;
import android.database.DatabaseUtils;
import android.database.SQLException;
import android.database.sqlite.SQLiteConstraintException;
import android.database.sqlite.SQLiteDatabase;
import android.database.sqlite.SQLiteStatement;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.android.internal.StoreOwnerLock;
import dev.oncely.client.spi.DuplicateIntentException;
import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.IntentStore;
import dev.oncely.client.spi.StoreCorruptedException;
import dev.oncely.client.spi.StoreException;
import dev.oncely.client.spi.StoreLockedException;
import dev.oncely.client.spi.StoreRules;
import java.io.File;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * An {@link IntentStore} on the platform's SQLite ({@code android.database.sqlite}): the Android
 * default, with no dependency beyond the framework. Thread-safe.
 *
 * <p><b>Durability.</b> The database runs in WAL mode with {@code synchronous=FULL}: every write is
 * one transaction, and a method that returns normally has its commit fsynced, so the record
 * survives the OS killing the app and a power cut. Opening checks both settings and refuses to
 * run with weaker ones.
 *
 * <p><b>Layout</b> (schema version {@value #SCHEMA_VERSION} in {@code PRAGMA user_version}): one
 * row per record in table {@code intents}, keyed by (scope, operation, key). The whole record is
 * a {@link RecordCodec} blob (the format every engine writes, with its own CRC-32); the columns beside the blob (business id,
 * unfinished flag, created and expiry times, revision) exist only for uniqueness, indexes and
 * compare-and-set. A unique index makes a business id belong to one record per scope and
 * operation; partial indexes over unfinished rows and over finished rows' expiry let
 * {@link #listUnfinished()} and {@link #purgeExpired} skip the rows they do not want.
 *
 * <p><b>Verification.</b> Every read checks the blob's CRC-32 and that the decoded record
 * matches its key columns; a mismatch throws {@link StoreCorruptedException} and deletes nothing.
 * A database written by a newer schema is refused the same way.
 *
 * <p><b>Ownership.</b> One store instance owns a file at a time, across processes too (an
 * exclusive lock on {@code <file>.lock}): SQLite would let two owners write safely, but two clients
 * would then drive the same intents. Share one instance.
 *
 * <p>Messages name the file and records by {@link IntentId#safeKey() safe key}, never a key or
 * payload.
 */
public final class AndroidSqliteIntentStore implements IntentStore {
  /** The schema version this class writes and reads. */
  public static final int SCHEMA_VERSION = 1;

  private static final long SYNCHRONOUS_FULL = 2;
  private static final String COLUMNS = "record, scope, operation, key, revision";
  private static final RecordCodec CODEC = new RecordCodec();

  private final SQLiteDatabase db;
  private final String path;
  private final StoreOwnerLock owner;
  private volatile boolean closed;

  private AndroidSqliteIntentStore(SQLiteDatabase db, String path, StoreOwnerLock owner) {
    this.db = db;
    this.path = path;
    this.owner = owner;
  }

  /**
   * Opens (creating if needed) the store in {@code file} and becomes its only owner (a lock on
   * {@code <file>.lock}). The parent directory must exist.
   *
   * @throws StoreLockedException if another process or store instance has the file open
   * @throws StoreCorruptedException if the file was written by a newer schema or is not a store
   * @throws StoreException if SQLite cannot open it, or refuses WAL or {@code synchronous=FULL}
   */
  public static AndroidSqliteIntentStore open(File file) {
    Objects.requireNonNull(file, "file");
    String path = file.getAbsolutePath();
    StoreOwnerLock owner = StoreOwnerLock.acquire(file.getAbsoluteFile());
    SQLiteDatabase db;
    try {
      db = SQLiteDatabase.openDatabase(path, null,
          SQLiteDatabase.CREATE_IF_NECESSARY | SQLiteDatabase.ENABLE_WRITE_AHEAD_LOGGING);
    } catch (SQLException e) {
      owner.release();
      throw new StoreException("cannot open the intent store " + path, e);
    }
    try {
      configure(db, path);
      return new AndroidSqliteIntentStore(db, path, owner);
    } catch (RuntimeException e) {
      db.close();
      owner.release();
      throw e;
    }
  }

  private static void configure(SQLiteDatabase db, String path) {
    try {
      db.execSQL("PRAGMA synchronous=FULL");
      long synchronous = DatabaseUtils.longForQuery(db, "PRAGMA synchronous", null);
      String journal = DatabaseUtils.stringForQuery(db, "PRAGMA journal_mode", null);
      if (synchronous != SYNCHRONOUS_FULL || !"wal".equalsIgnoreCase(journal)) {
        throw new StoreException("the intent store " + path + " needs journal_mode=wal and"
            + " synchronous=FULL (2), got " + journal + " and " + synchronous);
      }
      int version = db.getVersion();
      if (version > SCHEMA_VERSION) {
        throw new StoreCorruptedException("the intent store " + path + " has schema version "
            + version + "; this version reads " + SCHEMA_VERSION);
      }
      if (version == 0) {
        createSchema(db);
      }
    } catch (SQLException e) {
      throw new StoreCorruptedException("the intent store " + path + " cannot be read", e);
    }
  }

  private static void createSchema(SQLiteDatabase db) {
    db.beginTransaction();
    try {
      db.execSQL("CREATE TABLE intents ("
          + "scope TEXT NOT NULL, operation TEXT NOT NULL, key TEXT NOT NULL,"
          + " business_id TEXT, unfinished INTEGER NOT NULL,"
          + " created_sec INTEGER NOT NULL, created_nano INTEGER NOT NULL,"
          + " expires_sec INTEGER NOT NULL, expires_nano INTEGER NOT NULL,"
          + " revision INTEGER NOT NULL, record BLOB NOT NULL,"
          + " PRIMARY KEY (scope, operation, key))");
      db.execSQL("CREATE UNIQUE INDEX intents_business_id ON intents (scope, operation,"
          + " business_id) WHERE business_id IS NOT NULL");
      db.execSQL("CREATE INDEX intents_unfinished ON intents (created_sec, created_nano)"
          + " WHERE unfinished = 1");
      db.execSQL("CREATE INDEX intents_finished_expiry ON intents (expires_sec, expires_nano)"
          + " WHERE unfinished = 0");
      db.setVersion(SCHEMA_VERSION);
      db.setTransactionSuccessful();
    } finally {
      db.endTransaction();
    }
  }

  /** The absolute path of the database file. */
  public String path() {
    return path;
  }

  @Override
  public void create(IntentRecord record) {
    StoreRules.checkNew(record);
    byte[] blob = CODEC.encode(record);
    write(() -> {
      SQLiteStatement insert = db.compileStatement("INSERT INTO intents (scope, operation, key,"
          + " business_id, unfinished, created_sec, created_nano, expires_sec, expires_nano,"
          + " revision, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      try {
        bindId(insert, 1, record.id());
        if (record.businessId() == null) {
          insert.bindNull(4);
        } else {
          insert.bindString(4, record.businessId());
        }
        bindIndexed(insert, 5, record, blob);
        insert.executeInsert();
      } catch (SQLiteConstraintException e) {
        throw duplicate(record);
      } finally {
        insert.close();
      }
      return null;
    });
  }

  private DuplicateIntentException duplicate(IntentRecord record) {
    if (exists(record.id())) {
      return new DuplicateIntentException(record.id(),
          "record " + record.id() + " already exists in " + path);
    }
    return new DuplicateIntentException(record.id(), "business id of " + record.id()
        + " is already used in scope '" + record.id().scope() + "' and operation '"
        + record.id().operation() + "' in " + path);
  }

  private boolean exists(IntentId id) {
    return DatabaseUtils.longForQuery(db,
        "SELECT count(*) FROM intents WHERE scope = ? AND operation = ? AND key = ?",
        new String[] {id.scope(), id.operation(), id.key()}) > 0;
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    StoreRules.checkReplacement(expected, replacement);
    byte[] blob = CODEC.encode(replacement);
    return write(() -> {
      SQLiteStatement update = db.compileStatement("UPDATE intents SET unfinished = ?,"
          + " created_sec = ?, created_nano = ?, expires_sec = ?, expires_nano = ?,"
          + " revision = ?, record = ?"
          + " WHERE scope = ? AND operation = ? AND key = ? AND revision = ?");
      try {
        bindIndexed(update, 1, replacement, blob);
        bindId(update, 8, expected.id());
        update.bindLong(11, expected.revision());
        return update.executeUpdateDelete() == 1;
      } finally {
        update.close();
      }
    });
  }

  private static void bindId(SQLiteStatement statement, int first, IntentId id) {
    statement.bindString(first, id.scope());
    statement.bindString(first + 1, id.operation());
    statement.bindString(first + 2, id.key());
  }

  /** Binds unfinished, created, expires, revision and record from {@code first} on. */
  private static void bindIndexed(SQLiteStatement s, int first, IntentRecord r, byte[] blob) {
    s.bindLong(first, r.state().isTerminal() ? 0 : 1);
    s.bindLong(first + 1, r.createdAt().getEpochSecond());
    s.bindLong(first + 2, r.createdAt().getNano());
    s.bindLong(first + 3, r.expiresAt().getEpochSecond());
    s.bindLong(first + 4, r.expiresAt().getNano());
    s.bindLong(first + 5, r.revision());
    s.bindBlob(first + 6, blob);
  }

  @Override
  public Optional<IntentRecord> get(IntentId id) {
    Objects.requireNonNull(id, "id");
    return first(read("SELECT " + COLUMNS + " FROM intents"
        + " WHERE scope = ? AND operation = ? AND key = ?", id.scope(), id.operation(), id.key()));
  }

  @Override
  public Optional<IntentRecord> findByBusinessId(
      String scope, String operation, String businessId) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(businessId, "businessId");
    return first(read("SELECT " + COLUMNS + " FROM intents"
        + " WHERE scope = ? AND operation = ? AND business_id = ?", scope, operation, businessId));
  }

  @Override
  public List<IntentRecord> listUnfinished() {
    return read("SELECT " + COLUMNS + " FROM intents INDEXED BY intents_unfinished"
        + " WHERE unfinished = 1 ORDER BY created_sec, created_nano");
  }

  @Override
  public int purgeExpired(Instant now) {
    Objects.requireNonNull(now, "now");
    return write(() -> {
      SQLiteStatement delete = db.compileStatement("DELETE FROM intents"
          + " INDEXED BY intents_finished_expiry WHERE unfinished = 0"
          + " AND (expires_sec < ? OR (expires_sec = ? AND expires_nano <= ?))");
      try {
        delete.bindLong(1, now.getEpochSecond());
        delete.bindLong(2, now.getEpochSecond());
        delete.bindLong(3, now.getNano());
        return delete.executeUpdateDelete();
      } finally {
        delete.close();
      }
    });
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      db.close();
      owner.release();
    }
  }

  private <T> T write(Supplier<T> body) {
    checkOpen();
    try {
      db.beginTransactionNonExclusive();
      try {
        T result = body.get();
        db.setTransactionSuccessful();
        return result;
      } finally {
        db.endTransaction();
      }
    } catch (SQLException | IllegalStateException e) {
      throw failure("write to", e);
    }
  }

  private List<IntentRecord> read(String sql, String... args) {
    checkOpen();
    List<IntentRecord> records = new ArrayList<>();
    try (Cursor c = db.rawQuery(sql, args)) {
      while (c.moveToNext()) {
        records.add(verified(c));
      }
    } catch (SQLException | IllegalStateException e) {
      throw failure("read from", e);
    }
    return records;
  }

  private IntentRecord verified(Cursor c) {
    String where = "row " + c.getString(1) + "/" + c.getString(2) + " of " + path;
    IntentRecord record = CODEC.decode(c.getBlob(0), where);
    if (!record.id().scope().equals(c.getString(1))
        || !record.id().operation().equals(c.getString(2))
        || !record.id().key().equals(c.getString(3))
        || record.revision() != c.getLong(4)) {
      throw new StoreCorruptedException("record " + record.id() + " revision "
          + record.revision() + " does not match its key columns in " + where);
    }
    return record;
  }

  private static Optional<IntentRecord> first(List<IntentRecord> records) {
    return records.isEmpty() ? Optional.empty() : Optional.of(records.get(0));
  }

  private void checkOpen() {
    if (closed) {
      throw new StoreException("the intent store " + path + " is closed");
    }
  }

  private StoreException failure(String what, RuntimeException e) {
    if (closed) {
      return new StoreException("the intent store " + path + " is closed", e);
    }
    return new StoreException("cannot " + what + " the intent store " + path, e);
  }
}
