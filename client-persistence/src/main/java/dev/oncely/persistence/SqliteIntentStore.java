package dev.oncely.persistence;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoreLockedException;
import dev.oncely.client.StoreRules;
import dev.oncely.client.UnfinishedEntry;
import dev.oncely.client.spi.BusinessKey;
import dev.oncely.client.spi.DueClaim;
import dev.oncely.client.spi.Duplicates;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.client.spi.OwnerLock;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.StoreClosing;
import dev.oncely.client.spi.StoredRows;
import dev.oncely.client.spi.sql.IntentRow;
import dev.oncely.client.spi.sql.IntentRows;
import dev.oncely.client.spi.sql.IntentSql;
import dev.oncely.persistence.internal.GroupCommitter;
import dev.oncely.persistence.internal.ReadCache;
import dev.oncely.persistence.internal.StoreFiles;
import dev.oncely.persistence.internal.sqlite.SqliteCleanClose;
import dev.oncely.persistence.internal.sqlite.SqliteErrors;
import dev.oncely.persistence.internal.sqlite.SqliteFile;
import dev.oncely.persistence.internal.sqlite.SqliteReaders;
import dev.oncely.persistence.internal.sqlite.SqliteStatements;
import dev.oncely.persistence.internal.sqlite.SqliteTransaction;
import dev.oncely.persistence.internal.sqlite.SqliteTransactions;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * A durable {@link IntentStore} in one SQLite file: a record acknowledged by {@link #create} or
 * {@link #compareAndSet} survives a process crash or power loss, and a read never returns a record
 * that differs from one that was written (every record carries a CRC32 and is verified on read).
 * One instance owns the file and is safe to share across threads.
 *
 * <p><b>Layout.</b> {@code <file>} (SQLite, WAL mode, incremental auto-vacuum), {@code <file>-wal}
 * and {@code <file>-shm} (SQLite's log and its index, present while open or after a crash) and
 * {@code <file>.lock} (the owner lock; its content is the owner's pid) and {@code <file>.clean}
 * (present only while the store is closed after a clean close). Table {@code intent}: the
 * primary key is {@link RecordCodec#lookupKey SHA-256 of scope, operation and key} (the key is
 * not an index column), {@code record} holds the {@link RecordCodec} bytes; {@code business}
 * (a unique SHA-256 of scope, operation and business id), {@code open_s/open_ns} (creation time
 * while unfinished, indexed with the lookup key and {@code stub} by the partial covering index
 * {@code intent_unfinished_ids}) and
 * {@code purge_s/purge_ns} (expiry once terminal, partial index {@code intent_expiry}) and
 * {@code due_s/due_ns} (when an unfinished record is due, partial index {@code intent_due}, which
 * {@link #claimDue} walks) are derived from the record when it is written. Table {@code
 * oncely_meta} holds the schema version, whether records are encrypted, and a canary record that
 * detects a wrong key on open. This is the schema every Oncely SQLite engine writes, the Android
 * store's included, and every statement is the shared one ({@link dev.oncely.client.spi.sql}:
 * {@link dev.oncely.client.spi.sql.IntentTable}, {@link dev.oncely.client.spi.sql.IntentSql}).
 *
 * <p><b>Commit point.</b> Writes go through group commit: writes that arrive while a commit runs
 * share the next one ({@code BEGIN IMMEDIATE}, one statement per write, {@code COMMIT}). With
 * {@code synchronous=FULL}, {@code COMMIT} returns after the WAL frames are fsynced: that is the
 * commit point, and no caller returns before it.
 *
 * <p><b>Crash semantics.</b> A crash before the commit point loses the batch as a whole (SQLite
 * ignores WAL frames without a valid commit frame and checksums); a crash after it loses nothing.
 * A new file is created under a temporary name and renamed into place once its schema is
 * committed, so an existing file without a schema is damage, never a fresh store. On open, SQLite
 * replays the WAL; before that, this class checks, with reads only (an immutable connection, or a
 * private copy when a WAL is present), the SQLite header,
 * {@code PRAGMA integrity_check} (which, unlike {@code quick_check}, also compares indexes with the
 * table: a damaged key index would otherwise hide a record), the schema version and the canary.
 * A file that fails is reported as {@link StoreCorruptedException} naming the path
 * ({@link CorruptionPolicy#FAIL}, nothing touched) or moved aside with its WAL
 * ({@link CorruptionPolicy#QUARANTINE}). Damage inside a record, which {@code integrity_check}
 * cannot see, is caught by the record checksum on the read that meets it.
 *
 * <p><b>Cost of an open.</b> {@code integrity_check} reads the whole file (3 s at 400,000
 * records), so it runs only when the last close was not clean or the file changed since. A clean
 * close, after SQLite folded and removed its WAL, writes {@code <file>.clean} (size, inode, first
 * page CRC and a modification time the close sets one second back); an open that finds the file
 * exactly as described and no WAL checks the header, schema version and canary only, a cost that
 * does not grow with the store. The marker is deleted durably before the first connection that
 * may write, so a crash always leads to the full check; the argument is in
 * {@code internal.sqlite.SqliteCleanClose}.
 *
 * <p><b>File-system assumptions.</b> A local file system where {@code fsync} is honest, POSIX or
 * Windows locking works, and shared memory can be mapped beside the file (not NFS or SMB). New
 * files are owner-only (POSIX 600, a created directory 700); looser permissions on existing files
 * are tightened on open. Keep the database, {@code -wal} and {@code -shm} together: deleting the
 * WAL after a crash loses the commits it holds.
 */
public final class SqliteIntentStore implements IntentStore {
  private static final Logger LOG = Logger.getLogger(SqliteIntentStore.class.getName());
  /** Rows whose due time one group commit fills in at open. */
  private static final int FILL_ROWS = 500;

  private final Path path;
  private final String name;
  private final IntentRows rows;
  private final OwnerLock lock;
  private final Connection writer;
  private final SqliteStatements writes;
  private final SqliteReaders readers;
  private final ReadCache cache;
  private final GroupCommitter<SqliteTransaction> committer;
  private final StoreClosing closing;

  private SqliteIntentStore(Path path, StoreOptions options, OwnerLock lock,
      SqliteFile.Connections connections) {
    this.path = path;
    this.name = path.toString();
    this.rows = IntentRows.withStubs(name, options.encryption());
    this.lock = lock;
    this.writer = connections.writer();
    this.writes = new SqliteStatements(writer);
    this.readers = new SqliteReaders(connections.readers());
    this.cache = new ReadCache(options.cacheFactory(), options.cacheSize());
    this.committer = new GroupCommitter<>(name,
        new SqliteTransactions(writes, name, cache), options.maxBatch());
    this.closing = new StoreClosing(name);
  }

  /**
   * Opens the store at {@code file} with the {@linkplain StoreOptions#defaults() default options},
   * creating it if missing.
   *
   * @see #open(Path, StoreOptions)
   */
  public static SqliteIntentStore open(Path file) {
    return open(file, StoreOptions.defaults());
  }

  /**
   * Opens the store at {@code file}, creating it (and a missing directory) if missing. The WAL left
   * by a crash is replayed. After a crash, or when the file changed since its last clean close,
   * the file is checked with {@code PRAGMA integrity_check}, whose cost grows with the file
   * (measured on a shared 2-core machine: about 0.3 s of CPU for 100,000 unfinished records,
   * 59 MB); after a clean close only its header, schema version and canary are. A store created
   * before the covering unfinished index gets it on its first open, after the check.
   *
   * @throws NullPointerException if an argument is null
   * @throws StoreLockedException if another instance (in this JVM or another process) has the file
   *     open; no descriptor is left open
   * @throws StoreCorruptedException if the file is damaged and the policy is
   *     {@link CorruptionPolicy#FAIL}; nothing is changed
   * @throws dev.oncely.client.StoreEncryptionException if the file was written with another key, or the encryption
   *     setting differs from the file's
   * @throws StoreException if the directory is not writable, the disk fails or the file was written
   *     by a newer schema
   */
  public static SqliteIntentStore open(Path file, StoreOptions options) {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(options, "options");
    Path path = file.toAbsolutePath().normalize();
    StoreFiles.checkDirectory(path);
    return OwnerLock.openOwned(path.toFile(), lock -> {
      KeyCanary canary = new KeyCanary(options.encryption());
      SqliteFile.Connections connections;
      try {
        connections = SqliteFile.open(path, canary);
      } catch (StoreCorruptedException e) {
        if (options.corruptionPolicy() != CorruptionPolicy.QUARANTINE) {
          throw e;
        }
        DamagedStores.quarantineAndReport(path, SqliteFile.filesOf(path), options, e);
        connections = SqliteFile.open(path, canary);
      }
      SqliteIntentStore store;
      try {
        store = new SqliteIntentStore(path, options, lock, connections);
      } catch (RuntimeException | Error e) {
        SqliteFile.closeAll(e, connections.readers().toArray(new Connection[0]));
        SqliteFile.closeAll(e, connections.writer());
        throw e;
      }
      try {
        store.fillUnknownDueTimes();
      } catch (RuntimeException | Error e) {
        try {
          store.closing.close(store.committer::close, store.readers::close, store.writer::close);
        } catch (RuntimeException closeFailure) {
          e.addSuppressed(closeFailure);
        }
        throw e;
      }
      return store;
    });
  }

  /** The database file this store owns. */
  public Path path() {
    return path;
  }

  @Override
  public void create(IntentRecord record) {
    StoreRules.checkNew(record);
    checkOpen();
    IntentRow row = rows.row(record);
    write("creating", record.id(), (tx, c) -> {
      // One statement in the common case; which key collided is looked up only on a duplicate.
      PreparedStatement st = c.prepare(IntentSql.INSERT);
      SqliteStatements.bind(st, row.insertParameters());
      if (st.executeUpdate() == 0) {
        byte[] business = row.business();
        throw Duplicates.afterConflict(name, record,
            exists(c, IntentSql.LOOKUP_EXISTS, row.lookup()),
            business != null && exists(c, IntentSql.BUSINESS_EXISTS, business));
      }
      tx.stored(record);
      return null;
    });
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    StoreRules.checkReplacement(expected, replacement);
    checkOpen();
    IntentId id = expected.id();
    IntentRow row = rows.row(replacement);
    return write("replacing", id, (tx, c) -> {
      IntentRecord current;
      PreparedStatement select = c.prepare(IntentSql.RECORD);
      select.setBytes(1, row.lookup());
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return false;
        }
        current = rows.record(id, rs.getBytes(1));
      }
      if (current.revision() != expected.revision()) {
        return false;
      }
      PreparedStatement st = c.prepare(IntentSql.updateOf(current, replacement));
      SqliteStatements.bind(st, row.updateParameters());
      st.executeUpdate();
      tx.stored(replacement);
      return true;
    });
  }

  @Override
  public Optional<IntentRecord> get(IntentId id) {
    Objects.requireNonNull(id, "id");
    checkOpen();
    return Optional.ofNullable(cache.get(id, this::load));
  }

  private IntentRecord load(IntentId id) {
    return read("reading", id, c -> {
      PreparedStatement st = c.prepare(IntentSql.RECORD);
      st.setBytes(1, RecordCodec.lookupKey(id));
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? rows.record(id, rs.getBytes(1)) : null;
      }
    });
  }

  @Override
  public Optional<IntentRecord> findByBusinessId(
      String scope, String operation, String businessId) {
    byte[] business = BusinessKey.of(Objects.requireNonNull(scope, "scope"),
        Objects.requireNonNull(operation, "operation"),
        Objects.requireNonNull(businessId, "businessId"));
    checkOpen();
    String what = "finding a business id in " + scope + "/" + operation;
    return Optional.ofNullable(read(what, null, c -> {
      PreparedStatement st = c.prepare(IntentSql.BY_BUSINESS);
      st.setBytes(1, business);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return BusinessKey.checkFound(name, rows.record(rs.getBytes(1), rs.getBytes(2)), scope,
            operation, businessId);
      }
    }));
  }

  @Override
  public List<IntentRecord> listUnfinished() {
    checkOpen();
    return read("listing unfinished records", null, c -> {
      List<IntentRecord> unfinished = new ArrayList<>();
      PreparedStatement st = c.prepare(IntentSql.UNFINISHED);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          unfinished.add(rows.unfinished(rs.getBytes(1), rs.getBytes(2)));
        }
      }
      return unfinished;
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>Walks the partial index {@code intent_due} on the {@code due_s, due_ns} columns (written
   * with each row) from the start and stops at the first row not due, or once nothing later can
   * change the claim, decoding only the rows it reads: with every due column right, the ones it
   * returns. A row whose due columns disagree with its record (an older library changed the
   * record without them) is set right by a guarded update in the next group commit; a row whose
   * record fails verification is skipped and logged (the reads that meet it report it).
   */
  @Override
  public List<IntentRecord> claimDue(Instant now, int limit) {
    DueClaim claim = new DueClaim(now, limit);
    checkOpen();
    List<DueFix> wrong = new ArrayList<>();
    List<IntentRecord> claimed = read("claiming due records", null, c -> {
      PreparedStatement st = c.prepare(IntentSql.DUE);
      st.setLong(1, now.getEpochSecond());
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          Instant indexed = Instant.ofEpochSecond(rs.getLong(2), rs.getLong(3));
          if (!claim.wants(indexed)) {
            break;
          }
          byte[] lookup = rs.getBytes(1);
          byte[] bytes = rs.getBytes(4);
          IntentRecord r;
          try {
            r = rows.record(lookup, bytes);
          } catch (StoreCorruptedException e) {
            // One damaged row must not hold back every other due record; reads of it report it.
            LOG.log(Level.WARNING, "claimDue skips a damaged row", e);
            continue;
          }
          if (!claim.offer(r, indexed)) {
            wrong.add(new DueFix(lookup, bytes, DueClaim.indexTime(r)));
          }
        }
      }
      return claim.records();
    });
    if (!wrong.isEmpty()) {
      setDueTimes(wrong);
    }
    return claimed;
  }

  /** A row whose due columns must become {@code due}, if it still holds {@code record}. */
  private record DueFix(byte[] lookup, byte[] record, Instant due) {}

  /**
   * Sets the due columns of each row to its fix, if the row still holds the record bytes the claim
   * read, in one group commit. A failure is logged: the next claim that reads the row tries again.
   */
  private void setDueTimes(List<DueFix> rows) {
    try {
      write("correcting due times", null, (tx, c) -> {
        PreparedStatement st = c.prepare(IntentSql.SET_DUE_IF_RECORD);
        for (DueFix row : rows) {
          setInstant(st, 1, row.due());
          st.setBytes(3, row.lookup());
          st.setBytes(4, row.record());
          st.executeUpdate();
        }
        return null;
      });
    } catch (StoreException e) {
      LOG.log(Level.WARNING, name + ": correcting the due time of " + rows.size()
          + " rows failed; a later claim tries again", e);
    }
  }

  /**
   * Fills in the due columns of unfinished rows written without them (before the columns existed,
   * or by an older library), from their records, a few hundred rows per group commit. A row whose
   * record fails verification keeps no due time (it is reported by the reads that meet it) and is
   * tried again at the next open. Runs at open; costs nothing when no such row exists.
   */
  private void fillUnknownDueTimes() {
    byte[] after = new byte[0];
    while (true) {
      byte[] from = after;
      byte[] last = write("filling in due times", null, (tx, c) -> {
        PreparedStatement select = c.prepare(IntentSql.unknownDue(FILL_ROWS));
        select.setBytes(1, from);
        List<byte[]> lookups = new ArrayList<>();
        List<Instant> times = new ArrayList<>();
        try (ResultSet rs = select.executeQuery()) {
          while (rs.next()) {
            byte[] lookup = rs.getBytes(1);
            lookups.add(lookup);
            try {
              times.add(DueClaim.indexTime(rows.record(lookup, rs.getBytes(2))));
            } catch (StoreException e) {
              LOG.log(Level.WARNING, name + ": cannot compute the due time of "
                  + StoredRows.name(lookup) + "; it is tried again at the next open", e);
              times.add(null);
            }
          }
        }
        PreparedStatement update = c.prepare(IntentSql.SET_DUE);
        for (int i = 0; i < lookups.size(); i++) {
          if (times.get(i) != null) {
            setInstant(update, 1, times.get(i));
            update.setBytes(3, lookups.get(i));
            update.executeUpdate();
          }
        }
        return lookups.size() < FILL_ROWS ? null : lookups.get(lookups.size() - 1);
      });
      if (last == null) {
        return;
      }
      after = last;
    }
  }

  /** {@inheritDoc} Streams the rows outside the unfinished index, one decoded at a time. */
  @Override
  public void forEachFinished(Consumer<IntentRecord> visitor) {
    Objects.requireNonNull(visitor, "visitor");
    checkOpen();
    read("listing finished records", null, c -> {
      PreparedStatement st = c.prepare(IntentSql.FINISHED);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          visitor.accept(rows.finished(rs.getBytes(1), rs.getBytes(2)));
        }
      }
      return null;
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>Streams the covering unfinished index {@code intent_unfinished_ids}, which holds each row's
   * lookup key and {@code stub} (id and times, checksummed, the key sealed when the store
   * encrypts), so no table page and no record is read; a row written before the column existed
   * is listed from its record. Either way one row at a time is in memory.
   */
  @Override
  public List<UnfinishedEntry> listUnfinishedIds() {
    checkOpen();
    return read("listing unfinished records", null, c -> {
      List<UnfinishedEntry> unfinished = new ArrayList<>();
      RecordCodec.LookupKeys keys = new RecordCodec.LookupKeys();
      PreparedStatement st = c.prepare(IntentSql.UNFINISHED_STUBS);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          byte[] lookup = rs.getBytes(1);
          byte[] stub = rs.getBytes(2);
          unfinished.add(stub != null ? rows.entry(lookup, stub, keys)
              : UnfinishedEntry.of(rows.unfinished(lookup, recordOf(c, lookup))));
        }
      }
      return unfinished;
    });
  }

  /** The record bytes of the row {@code lookup}, read in the listing's own read transaction. */
  private byte[] recordOf(SqliteStatements c, byte[] lookup) throws SQLException {
    PreparedStatement st = c.prepare(IntentSql.RECORD);
    st.setBytes(1, lookup);
    try (ResultSet rs = st.executeQuery()) {
      if (!rs.next()) {
        throw new StoreCorruptedException(name + ": " + StoredRows.name(lookup)
            + " is in the unfinished index but not in the table");
      }
      return rs.getBytes(1);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>The freed pages are returned to the file system with {@code PRAGMA incremental_vacuum} in
   * the same commit; the file shrinks when SQLite next checkpoints its WAL (at the latest on close).
   */
  @Override
  public int purgeExpired(Instant now) {
    Objects.requireNonNull(now, "now");
    checkOpen();
    return write("purging expired records", null, (tx, c) -> {
      int deleted;
      PreparedStatement st = c.prepare(IntentSql.PURGE);
      st.setLong(1, now.getEpochSecond());
      st.setLong(2, now.getEpochSecond());
      st.setInt(3, now.getNano());
      deleted = st.executeUpdate();
      if (deleted > 0) {
        tx.deletedSome();
        try (Statement vacuum = c.connection().createStatement()) {
          // executeUpdate steps the pragma to completion; execute would free a single page.
          vacuum.executeUpdate("PRAGMA incremental_vacuum");
        }
      }
      return deleted;
    });
  }

  /**
   * Commits queued writes, closes the connections (SQLite then checkpoints and removes the WAL),
   * records the clean close for the next open's check, and releases the owner lock. Idempotent.
   *
   * @throws StoreException if closing a connection or the lock failed; the lock is released anyway
   */
  @Override
  public void close() {
    closing.close(committer::close, readers::close, writer::close,
        () -> SqliteCleanClose.record(path), lock::close);
  }

  @Override
  public String toString() {
    return "SqliteIntentStore{" + name + (closing.isClosed() ? ", closed}" : "}");
  }

  @FunctionalInterface
  private interface SqlRead<R> {
    R apply(SqliteStatements reader) throws SQLException;
  }

  @FunctionalInterface
  private interface SqlWrite<R> {
    R apply(SqliteTransaction transaction, SqliteStatements writer) throws SQLException;
  }

  /**
   * Runs {@code body} in the next group commit. A failure inside SQLite (or the driver) fails the
   * whole batch; the store's own refusals (duplicate, corrupt current record) fail this write only.
   */
  private <R> R write(String verb, @Nullable IntentId id, SqlWrite<R> body) {
    return committer.execute(tx -> {
      try {
        return body.apply(tx, writes);
      } catch (SQLException e) {
        tx.failed(e);
        throw SqliteErrors.translate(e, name, what(verb, id));
      } catch (StoreException e) {
        throw e;
      } catch (RuntimeException e) {
        tx.failed(e);
        throw new StoreException(name + ": " + what(verb, id) + " failed: " + e, e);
      }
    });
  }

  /**
   * What a read or write did, for its error message: built only when it failed (an id's text hashes its
   * key, a cost every write paid before).
   */
  private static String what(String verb, @Nullable IntentId id) {
    return id == null ? verb : verb + " " + id;
  }

  private <R> R read(String verb, @Nullable IntentId id, SqlRead<R> body) {
    try {
      checkOpen();
      return readers.read(body::apply);
    } catch (SQLException e) {
      throw SqliteErrors.translate(e, name, what(verb, id));
    } catch (StoreException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new StoreException(name + ": " + what(verb, id) + " failed: " + e, e);
    }
  }

  private void checkOpen() {
    closing.checkOpen();
  }

  private static boolean exists(SqliteStatements c, String sql, byte[] key)
      throws SQLException {
    PreparedStatement st = c.prepare(sql);
    st.setBytes(1, key);
    try (ResultSet rs = st.executeQuery()) {
      return rs.next();
    }
  }

  private static void setInstant(PreparedStatement st, int index, Instant t) throws SQLException {
    if (t == null) {
      st.setNull(index, java.sql.Types.INTEGER);
      st.setNull(index + 1, java.sql.Types.INTEGER);
    } else {
      st.setLong(index, t.getEpochSecond());
      st.setInt(index + 1, t.getNano());
    }
  }
}
