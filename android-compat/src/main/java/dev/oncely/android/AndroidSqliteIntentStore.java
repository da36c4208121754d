package dev.oncely.android;

import android.database.Cursor;
import android.database.DatabaseUtils;
import android.database.SQLException;
import android.database.sqlite.SQLiteConstraintException;
import android.database.sqlite.SQLiteCursor;
import android.database.sqlite.SQLiteDatabase;
import android.database.sqlite.SQLiteDatabaseCorruptException;
import android.database.sqlite.SQLiteStatement;
import dev.oncely.android.internal.NeverDeleteOnCorruption;
import dev.oncely.android.internal.StoreSchema;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoreLockedException;
import dev.oncely.client.StoreRules;
import dev.oncely.client.spi.BusinessKey;
import dev.oncely.client.spi.DueClaim;
import dev.oncely.client.spi.Duplicates;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.client.spi.OwnerLock;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.StoreClosing;
import dev.oncely.client.spi.StoredRows;
import java.io.File;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
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
 * row per record in table {@code records}, keyed by {@link RecordCodec#lookupKey} (SHA-256 of
 * scope, operation and key): the idempotency key, scope, operation and business id are never kept
 * in a column, only hashed; the whole record is a {@link RecordCodec} blob (the format every engine
 * writes, with its own CRC-32, its sensitive part sealed when {@link AndroidStoreOptions#encryption}
 * is set). The other columns (business-id hash, unfinished flag, created and expiry times,
 * revision) exist only for uniqueness, indexes and compare-and-set; partial indexes over
 * unfinished rows and over finished rows' expiry let {@link #listUnfinished()} and
 * {@link #purgeExpired} skip the rows they do not want; the due columns and their partial index
 * let {@link #claimDue} read only the rows it returns. Table {@code meta} holds whether records
 * are encrypted and a canary record that detects a wrong key on open. A schema-1 file (keys in
 * clear) is migrated on open.
 *
 * <p><b>Verification and corruption.</b> Every read checks the blob's CRC-32 and that the decoded
 * record hashes to its row's lookup key; a mismatch throws {@link StoreCorruptedException}. When
 * SQLite itself reports the file corrupted, the framework's default handler would delete the
 * database; this store installs one that never deletes or moves it, throws
 * {@link StoreCorruptedException} naming the file, and only with
 * {@link AndroidStoreOptions.Builder#quarantineCopies} copies the files aside. A database written
 * by a newer schema is refused the same way.
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

  public static final int SCHEMA_VERSION = StoreSchema.VERSION;

  private static final long SYNCHRONOUS_FULL = 2;
  private static final String COLUMNS = "record, lookup, revision";

  private final SQLiteDatabase db;
  private final String path;
  private final OwnerLock owner;
  private final RecordCodec codec;
  private final NeverDeleteOnCorruption corruption;
  private final StoreClosing closing;

  private AndroidSqliteIntentStore(SQLiteDatabase db, String path, OwnerLock owner,
      RecordCodec codec, NeverDeleteOnCorruption corruption) {
    this.db = db;
    this.path = path;
    this.owner = owner;
    this.codec = codec;
    this.corruption = corruption;
    this.closing = new StoreClosing("the intent store " + path);
  }

  /**
   * Opens (creating if needed) the store in {@code file} with the {@linkplain
   * AndroidStoreOptions#defaults() default options}; see {@link #open(File, AndroidStoreOptions)}.
   *
   * @throws StoreLockedException if another process or store instance has the file open
   * @throws StoreCorruptedException if the file is damaged, was written by a newer schema or is
   *     not a store; nothing is deleted
   * @throws StoreEncryptionException if the store was created with encryption
   * @throws StoreException if SQLite cannot open it, or refuses WAL or {@code synchronous=FULL}
   */
  public static AndroidSqliteIntentStore open(File file) {
    return open(file, AndroidStoreOptions.defaults());
  }

  /**
   * Opens (creating if needed) the store in {@code file} and becomes its only owner (a lock on
   * {@code <file>.lock}). The parent directory must exist.
   *
   * @throws NullPointerException if an argument is null
   * @throws StoreLockedException if another process or store instance has the file open
   * @throws StoreCorruptedException if the file is damaged, was written by a newer schema or is
   *     not a store; nothing is deleted (a copy is made aside only with
   *     {@link AndroidStoreOptions.Builder#quarantineCopies})
   * @throws StoreEncryptionException if the options' encryption does not match the file's (no
   *     key for an encrypted store, a key for a plain one, or another key)
   * @throws StoreException if SQLite cannot open it, or refuses WAL or {@code synchronous=FULL}
   */
  public static AndroidSqliteIntentStore open(File file, AndroidStoreOptions options) {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(options, "options");
    String path = file.getAbsolutePath();
    return OwnerLock.openOwned(file.getAbsoluteFile(), owner -> {
      NeverDeleteOnCorruption corruption =
          new NeverDeleteOnCorruption(file.getAbsoluteFile(), options.quarantineCopies());
      RecordCodec codec = new RecordCodec(options.encryption());
      SQLiteDatabase db;
      try {
        db = SQLiteDatabase.openDatabase(path, null,
            SQLiteDatabase.CREATE_IF_NECESSARY | SQLiteDatabase.ENABLE_WRITE_AHEAD_LOGGING,
            corruption);
      } catch (SQLiteDatabaseCorruptException e) {
        throw corrupted(path, corruption, e);
      } catch (SQLException e) {
        throw new StoreException("cannot open the intent store " + path, e);
      }
      try {
        configure(db, path, codec, new KeyCanary(options.encryption()));
        return new AndroidSqliteIntentStore(db, path, owner, codec, corruption);
      } catch (SQLiteDatabaseCorruptException e) {
        db.close();
        throw corrupted(path, corruption, e);
      } catch (RuntimeException e) {
        db.close();
        throw e;
      }
    });
  }

  private static StoreCorruptedException corrupted(String path,
      NeverDeleteOnCorruption corruption, RuntimeException e) {
    File copy = corruption.lastCopy();
    return new StoreCorruptedException("SQLite reports the intent store " + path
        + " corrupted; it was left in place" + (copy == null ? "" : ", a copy is at " + copy),
        e);
  }

  private static void configure(SQLiteDatabase db, String path, RecordCodec codec,
      KeyCanary canary) {
    try {
      db.execSQL("PRAGMA synchronous=FULL");
      long synchronous = DatabaseUtils.longForQuery(db, "PRAGMA synchronous", null);
      String journal = DatabaseUtils.stringForQuery(db, "PRAGMA journal_mode", null);
      if (synchronous != SYNCHRONOUS_FULL || !"wal".equalsIgnoreCase(journal)) {
        throw new StoreException("the intent store " + path + " needs journal_mode=wal and"
            + " synchronous=FULL (2), got " + journal + " and " + synchronous);
      }
      StoreSchema.prepare(db, path, codec, canary);
    } catch (SQLiteDatabaseCorruptException e) {
      throw e;
    } catch (SQLException e) {
      throw new StoreCorruptedException("the intent store " + path + " cannot be read", e);
    }
  }

  /** The absolute path of the database file. */
  public String path() {
    return path;
  }

  @Override
  public void create(IntentRecord record) {
    StoreRules.checkNew(record);
    byte[] blob = codec.encode(record);
    write(() -> {
      SQLiteStatement insert = db.compileStatement("INSERT INTO records (lookup, business,"
          + " unfinished, created_sec, created_nano, expires_sec, expires_nano, revision, record,"
          + " due_sec, due_nano) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      try {
        insert.bindBlob(1, RecordCodec.lookupKey(record.id()));
        byte[] business = BusinessKey.of(record);
        if (business == null) {
          insert.bindNull(2);
        } else {
          insert.bindBlob(2, business);
        }
        bindIndexed(insert, 3, record, blob);
        insert.executeInsert();
      } catch (SQLiteConstraintException e) {
        throw duplicate(record);
      } finally {
        insert.close();
      }
      return null;
    });
  }

  private RuntimeException duplicate(IntentRecord record) {
    byte[] business = BusinessKey.of(record);
    return Duplicates.afterConflict("the intent store " + path, record,
        exists("lookup", RecordCodec.lookupKey(record.id())),
        business != null && exists("business", business));
  }

  /** Whether a row has {@code hash} in {@code column} (a key column name, never input). */
  private boolean exists(String column, byte[] hash) {
    SQLiteStatement count = db.compileStatement(
        "SELECT count(*) FROM records WHERE " + column + " = ?");
    try {
      count.bindBlob(1, hash);
      return count.simpleQueryForLong() > 0;
    } finally {
      count.close();
    }
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    StoreRules.checkReplacement(expected, replacement);
    byte[] blob = codec.encode(replacement);
    return write(() -> {
      SQLiteStatement update = db.compileStatement("UPDATE records SET unfinished = ?,"
          + " created_sec = ?, created_nano = ?, expires_sec = ?, expires_nano = ?,"
          + " revision = ?, record = ?, due_sec = ?, due_nano = ?"
          + " WHERE lookup = ? AND revision = ?");
      try {
        bindIndexed(update, 1, replacement, blob);
        update.bindBlob(10, RecordCodec.lookupKey(expected.id()));
        update.bindLong(11, expected.revision());
        return update.executeUpdateDelete() == 1;
      } finally {
        update.close();
      }
    });
  }

  /** Binds unfinished, created, expires, revision, record and due from {@code first} on. */
  private static void bindIndexed(SQLiteStatement s, int first, IntentRecord r, byte[] blob) {
    s.bindLong(first, r.state().isTerminal() ? 0 : 1);
    s.bindLong(first + 1, r.createdAt().getEpochSecond());
    s.bindLong(first + 2, r.createdAt().getNano());
    s.bindLong(first + 3, r.expiresAt().getEpochSecond());
    s.bindLong(first + 4, r.expiresAt().getNano());
    s.bindLong(first + 5, r.revision());
    s.bindBlob(first + 6, blob);
    StoreSchema.bindDue(s, first + 7, DueClaim.indexTime(r));
  }

  @Override
  public Optional<IntentRecord> get(IntentId id) {
    Objects.requireNonNull(id, "id");
    return first(read("SELECT " + COLUMNS + " FROM records WHERE lookup = ?",
        RecordCodec.lookupKey(id)));
  }

  @Override
  public Optional<IntentRecord> findByBusinessId(
      String scope, String operation, String businessId) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(businessId, "businessId");
    return first(read("SELECT " + COLUMNS + " FROM records"
        + " WHERE business = ?", BusinessKey.of(scope, operation, businessId)))
        .map(r -> BusinessKey.checkFound("the intent store " + path, r, scope, operation,
            businessId));
  }

  @Override
  public List<IntentRecord> listUnfinished() {
    return read("SELECT " + COLUMNS + " FROM records INDEXED BY records_unfinished"
        + " WHERE unfinished = 1 ORDER BY created_sec, created_nano");
  }

  /**
   * {@inheritDoc}
   *
   * <p>Reads the first {@code limit} rows of the partial index {@code records_due} on the {@code
   * due_sec, due_nano} columns (written with each row) that are due at {@code now}, earliest
   * first: the cost of the rows it returns, however many records the store holds. A row whose
   * record fails verification, or disagrees with its due columns (damage), is left out.
   */
  @Override
  public List<IntentRecord> claimDue(Instant now, int limit) {
    DueClaim claim = new DueClaim(now, limit);
    checkOpen();
    SQLiteDatabase.CursorFactory binding = (database, driver, table, query) -> {
      query.bindLong(1, now.getEpochSecond());
      query.bindLong(2, limit);
      return new SQLiteCursor(driver, table, query);
    };
    try (Cursor c = db.rawQueryWithFactory(binding, "SELECT " + COLUMNS + ", due_sec, due_nano"
        + " FROM records INDEXED BY records_due WHERE due_sec IS NOT NULL AND due_sec <= ?"
        + " ORDER BY due_sec, due_nano LIMIT ?", null, null)) {
      while (c.moveToNext()) {
        Instant indexed = Instant.ofEpochSecond(c.getLong(3), c.getLong(4));
        if (!claim.wants(indexed)) {
          break;
        }
        try {
          claim.offer(verified(c), indexed);
        } catch (StoreCorruptedException | StoreEncryptionException e) {
          // One damaged row must not hold back every other due record; reads of it report it.
        }
      }
    } catch (SQLiteDatabaseCorruptException e) {
      throw corrupted(path, corruption, e);
    } catch (SQLException | IllegalStateException e) {
      throw failure("read from", e);
    }
    return claim.records();
  }

  /** {@inheritDoc} One row at a time from the rows outside the unfinished index. */
  @Override
  public void forEachFinished(Consumer<IntentRecord> visitor) {
    Objects.requireNonNull(visitor, "visitor");
    read("SELECT " + COLUMNS + " FROM records WHERE unfinished = 0", visitor);
  }

  @Override
  public int purgeExpired(Instant now) {
    Objects.requireNonNull(now, "now");
    return write(() -> {
      SQLiteStatement delete = db.compileStatement("DELETE FROM records"
          + " INDEXED BY records_finished_expiry WHERE unfinished = 0"
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
  public void close() {
    closing.close(db::close, owner::close);
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
    } catch (SQLiteDatabaseCorruptException e) {
      throw corrupted(path, corruption, e);
    } catch (SQLException | IllegalStateException e) {
      throw failure("write to", e);
    }
  }

  /** Runs a query whose arguments are hashes (rawQuery binds only strings, so a factory binds). */
  private List<IntentRecord> read(String sql, byte[]... hashes) {
    List<IntentRecord> records = new ArrayList<>();
    read(sql, records::add, hashes);
    return records;
  }

  /** Runs {@code sql}, handing each verified row to {@code each} as it is read. */
  private void read(String sql, Consumer<IntentRecord> each, byte[]... hashes) {
    checkOpen();
    SQLiteDatabase.CursorFactory binding = (database, driver, table, query) -> {
      for (int i = 0; i < hashes.length; i++) {
        query.bindBlob(i + 1, hashes[i]);
      }
      return new SQLiteCursor(driver, table, query);
    };
    try (Cursor c = db.rawQueryWithFactory(binding, sql, null, null)) {
      while (c.moveToNext()) {
        each.accept(verified(c));
      }
    } catch (SQLiteDatabaseCorruptException e) {
      throw corrupted(path, corruption, e);
    } catch (SQLException | IllegalStateException e) {
      throw failure("read from", e);
    }
  }

  private IntentRecord verified(Cursor c) {
    byte[] lookup = c.getBlob(1);
    String store = "the intent store " + path;
    return StoredRows.checkRevision(store, lookup, c.getLong(2),
        StoredRows.decode(codec, store, lookup, c.getBlob(0)));
  }

  private static Optional<IntentRecord> first(List<IntentRecord> records) {
    return records.isEmpty() ? Optional.empty() : Optional.of(records.get(0));
  }

  private void checkOpen() {
    closing.checkOpen();
  }

  private StoreException failure(String what, RuntimeException e) {
    if (closing.isClosed()) {
      return closing.closedFailure(e);
    }
    return new StoreException("cannot " + what + " the intent store " + path, e);
  }
}
