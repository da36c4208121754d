package dev.oncely.android;

import android.database.Cursor;
import android.database.DatabaseUtils;
import android.database.SQLException;
import android.database.sqlite.SQLiteCursor;
import android.database.sqlite.SQLiteDatabase;
import android.database.sqlite.SQLiteDatabaseCorruptException;
import android.database.sqlite.SQLiteStatement;
import dev.oncely.android.internal.NeverDeleteOnCorruption;
import dev.oncely.android.internal.SqlParameters;
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
import dev.oncely.client.spi.sql.IntentRow;
import dev.oncely.client.spi.sql.IntentRows;
import dev.oncely.client.spi.sql.IntentSql;
import dev.oncely.client.spi.sql.IntentTable;
import java.io.File;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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
 * <p><b>Layout</b>: the schema every Oncely SQLite engine shares ({@link IntentTable}, version in
 * table {@code oncely_meta}; {@code PRAGMA user_version} {@value #SCHEMA_VERSION}), read and
 * written with the shared statements ({@link IntentSql}). One row per record in table {@code
 * intent}, keyed by {@link RecordCodec#lookupKey} (SHA-256 of scope, operation and key): the
 * idempotency key, scope, operation and business id are never kept in a column, only hashed; the
 * whole record is a {@link RecordCodec} blob (the format every engine writes, with its own CRC-32,
 * its sensitive part sealed when {@link AndroidStoreOptions#encryption} is set). The other columns
 * (business-id hash, creation time while unfinished, expiry once finished, the due time) exist
 * only for uniqueness and for partial indexes that let {@link #listUnfinished()}, {@link
 * #claimDue} and {@link #purgeExpired} read only the rows they want; the schema's {@code stub}
 * column stays empty, so no column but {@code record} holds any part of an id. Table {@code oncely_meta} holds the schema version, whether
 * records are encrypted and a canary record that detects a wrong key on open. A file of an
 * earlier layout of this store (versions 1 to 3: table {@code records}, or {@code intents} with
 * keys in clear) is converted on open, in one transaction, without losing a row.
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
  /** The {@code PRAGMA user_version} this class writes and reads (the shared schema). */
  public static final int SCHEMA_VERSION = StoreSchema.VERSION;

  private static final long SYNCHRONOUS_FULL = 2;

  private final SQLiteDatabase db;
  private final String path;
  private final String name;
  private final OwnerLock owner;
  private final IntentRows rows;
  private final NeverDeleteOnCorruption corruption;
  private final StoreClosing closing;

  private AndroidSqliteIntentStore(SQLiteDatabase db, String path, OwnerLock owner,
      IntentRows rows, NeverDeleteOnCorruption corruption) {
    this.db = db;
    this.path = path;
    this.name = "the intent store " + path;
    this.owner = owner;
    this.rows = rows;
    this.corruption = corruption;
    this.closing = new StoreClosing(name);
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
   * {@code <file>.lock}). The parent directory must exist. A file of an earlier layout of this
   * store is converted to the shared schema first, in one transaction.
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
      // No column but record holds any part of an id: the stub column stays empty.
      IntentRows rows = IntentRows.withoutStubs("the intent store " + path, options.encryption());
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
        configure(db, path, rows, new KeyCanary(options.encryption()));
        return new AndroidSqliteIntentStore(db, path, owner, rows, corruption);
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

  private static void configure(SQLiteDatabase db, String path, IntentRows rows,
      KeyCanary canary) {
    try {
      db.execSQL("PRAGMA synchronous=FULL");
      long synchronous = DatabaseUtils.longForQuery(db, "PRAGMA synchronous", null);
      String journal = DatabaseUtils.stringForQuery(db, "PRAGMA journal_mode", null);
      if (synchronous != SYNCHRONOUS_FULL || !"wal".equalsIgnoreCase(journal)) {
        throw new StoreException("the intent store " + path + " needs journal_mode=wal and"
            + " synchronous=FULL (2), got " + journal + " and " + synchronous);
      }
      StoreSchema.prepare(db, path, rows, canary);
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
    IntentRow row = rows.row(record);
    write(() -> {
      // One statement in the common case; which key collided is looked up only on a duplicate.
      SQLiteStatement insert = db.compileStatement(IntentSql.INSERT);
      try {
        SqlParameters.bind(insert, row.insertParameters());
        if (insert.executeUpdateDelete() == 0) {
          byte[] business = row.business();
          throw Duplicates.afterConflict(name, record,
              exists(IntentSql.LOOKUP_EXISTS, row.lookup()),
              business != null && exists(IntentSql.BUSINESS_EXISTS, business));
        }
      } finally {
        insert.close();
      }
      return null;
    });
  }

  /** Whether {@code sql} (a shared existence query) finds a row for {@code key}. */
  private boolean exists(String sql, byte[] key) {
    try (Cursor c = query(sql, Collections.singletonList(key))) {
      return c.moveToFirst();
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Reads and verifies the current record in the write transaction, like every engine, so a
   * damaged current record is reported rather than overwritten.
   */
  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    StoreRules.checkReplacement(expected, replacement);
    IntentRow row = rows.row(replacement);
    return write(() -> {
      IntentRecord current;
      try (Cursor c = query(IntentSql.RECORD, Collections.singletonList(row.lookup()))) {
        if (!c.moveToFirst()) {
          return false;
        }
        current = rows.record(expected.id(), c.getBlob(0));
      }
      if (current.revision() != expected.revision()) {
        return false;
      }
      SQLiteStatement update = db.compileStatement(IntentSql.updateOf(current, replacement));
      try {
        SqlParameters.bind(update, row.updateParameters());
        update.executeUpdateDelete();
      } finally {
        update.close();
      }
      return true;
    });
  }

  @Override
  public Optional<IntentRecord> get(IntentId id) {
    Objects.requireNonNull(id, "id");
    byte[] lookup = RecordCodec.lookupKey(id);
    return first(read(IntentSql.RECORD, Collections.singletonList(lookup),
        c -> rows.record(lookup, c.getBlob(0))));
  }

  @Override
  public Optional<IntentRecord> findByBusinessId(
      String scope, String operation, String businessId) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(businessId, "businessId");
    return first(read(IntentSql.BY_BUSINESS,
        Collections.singletonList(BusinessKey.of(scope, operation, businessId)),
        c -> rows.record(c.getBlob(0), c.getBlob(1))))
        .map(r -> BusinessKey.checkFound(name, r, scope, operation, businessId));
  }

  @Override
  public List<IntentRecord> listUnfinished() {
    return read(IntentSql.UNFINISHED, Collections.emptyList(),
        c -> rows.unfinished(c.getBlob(0), c.getBlob(1)));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Reads the first {@code limit} rows of the partial index {@code intent_due} on the due
   * columns (written with each row) that are due at {@code now}, earliest first: the cost of the
   * rows it returns, however many records the store holds. A row whose record fails verification,
   * or disagrees with its due columns (damage), is left out.
   */
  @Override
  public List<IntentRecord> claimDue(Instant now, int limit) {
    DueClaim claim = new DueClaim(now, limit);
    checkOpen();
    try (Cursor c = query(IntentSql.DUE + IntentSql.LIMITED,
        Arrays.asList(now.getEpochSecond(), (long) limit))) {
      while (c.moveToNext()) {
        Instant indexed = Instant.ofEpochSecond(c.getLong(1), c.getLong(2));
        if (!claim.wants(indexed)) {
          break;
        }
        try {
          claim.offer(rows.record(c.getBlob(0), c.getBlob(3)), indexed);
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
    read(IntentSql.FINISHED, Collections.emptyList(),
        c -> rows.finished(c.getBlob(0), c.getBlob(1)), visitor);
  }

  @Override
  public int purgeExpired(Instant now) {
    Objects.requireNonNull(now, "now");
    return write(() -> {
      SQLiteStatement delete = db.compileStatement(IntentSql.PURGE);
      try {
        SqlParameters.bind(delete, Arrays.asList(now.getEpochSecond(), now.getEpochSecond(),
            (long) now.getNano()));
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

  /** One row of a query, read into a value; may throw the store's own refusals. */
  private interface RowReader<T> {
    T read(Cursor row);
  }

  /** Runs {@code sql} and collects each row {@code reader} makes of it. */
  private <T> List<T> read(String sql, List<?> parameters, RowReader<T> reader) {
    List<T> values = new ArrayList<>();
    read(sql, parameters, reader, values::add);
    return values;
  }

  /** Runs {@code sql}, handing each row {@code reader} makes of it to {@code each} as it is read. */
  private <T> void read(String sql, List<?> parameters, RowReader<T> reader,
      Consumer<? super T> each) {
    checkOpen();
    try (Cursor c = query(sql, parameters)) {
      while (c.moveToNext()) {
        each.accept(reader.read(c));
      }
    } catch (SQLiteDatabaseCorruptException e) {
      throw corrupted(path, corruption, e);
    } catch (SQLException | IllegalStateException e) {
      throw failure("read from", e);
    }
  }

  /**
   * A cursor over {@code sql} with {@code parameters} bound ({@code rawQuery} binds only strings,
   * so a factory binds blobs and integers).
   */
  private Cursor query(String sql, List<?> parameters) {
    SQLiteDatabase.CursorFactory binding = (database, driver, table, query) -> {
      SqlParameters.bind(query, parameters);
      return new SQLiteCursor(driver, table, query);
    };
    return db.rawQueryWithFactory(binding, sql, null, null);
  }

  private static <T> Optional<T> first(List<T> values) {
    return values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
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
