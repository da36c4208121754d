package dev.oncely.persistence.internal.sqlite;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.client.spi.sql.IntentSql;
import dev.oncely.client.spi.sql.IntentTable;
import dev.oncely.persistence.internal.StoreFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteOpenMode;

/**
 * Creates, opens and verifies the SQLite file of a {@code SqliteIntentStore}: schema (the shared
 * {@link IntentTable}), pragmas, {@code PRAGMA integrity_check}, schema version and the
 * encryption canary, and brings a file of an older layout of this engine up to the schema.
 *
 * <p>A new file is built as {@code <name>.new}, closed (which checkpoints and removes its WAL) and
 * renamed into place, so an existing store file always holds a committed schema: an existing
 * file without one was truncated or overwritten and is reported as corrupt, never re-initialised.
 *
 * <p><b>Verify before write.</b> An existing file is checked before this class opens it for
 * writing: an SQLite connection that may write would replay and merge the WAL into the database
 * file when it closes, and create or rewrite {@code -shm}. Without a WAL the check reads the file
 * through an {@code immutable} read-only connection; with one (a crash image) it runs on a private
 * copy of the database and its WAL in an owner-only directory beside the store, deleted after.
 * A refused open therefore leaves every file byte for byte as it was found, permissions included.
 */
public final class SqliteFile {
  private static final byte[] HEADER_MAGIC =
      "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);
  /** SQLite's default page cache, in KiB. */
  private static final long DEFAULT_CACHE_KIB = 2000;
  private static final long MAX_VERIFY_CACHE_KIB = 64 * 1024;
  /** A committed schema spans at least two pages of at least 512 bytes. */
  private static final long MIN_FILE_BYTES = 1024;

  /** Read-only connections opened beside the writer. */
  static final int READERS = 4;

  /** The writer (used by the caller leading each group commit) and the readers of an open file. */
  public record Connections(Connection writer, List<Connection> readers) {}

  private SqliteFile() {}

  /** The files SQLite keeps for {@code path}: the database, its WAL and its shared memory index. */
  public static List<Path> filesOf(Path path) {
    return List.of(path, sibling(path, "-wal"), sibling(path, "-shm"));
  }

  /**
   * Opens {@code path}, creating a new store if neither it nor its WAL exists, and verifies it;
   * {@code canary} holds the store's encryption setting and checks the key.
   *
   * @throws StoreCorruptedException if the file is damaged, not a database or not an Oncely store
   * @throws StoreEncryptionException if the encryption setting or key does not match the file's
   * @throws StoreException for any other failure (unreadable, newer schema, I/O)
   */
  public static Connections open(Path path, KeyCanary canary) {
    if (!Files.exists(path)) {
      if (Files.exists(sibling(path, "-wal"))) {
        throw new StoreCorruptedException(path + " is missing but its write-ahead log "
            + sibling(path, "-wal") + " exists; the database file was deleted or moved");
      }
      create(path, canary);
    }
    verify(path, canary, SqliteCleanClose.matches(path));
    Connection writer = null;
    List<Connection> readers = new ArrayList<>();
    try {
      SqliteCleanClose.forget(path);
      for (Path file : filesOf(path)) {
        StoreFiles.tightenToOwner(file);
      }
      writer = connect(path, false);
      configure(writer, path);
      addStubColumn(writer);
      coverUnfinishedIndex(writer);
      addDueColumns(writer);
      for (int i = 0; i < READERS; i++) {
        Connection reader = connect(path, false);
        readers.add(reader);
        execute(reader, "PRAGMA query_only = ON");
        execute(reader, "PRAGMA cell_size_check = ON");
      }
      return new Connections(writer, readers);
    } catch (SQLException e) {
      closeAll(e, withWriter(readers, writer));
      throw SqliteErrors.translate(e, path.toString(), "opening the store");
    } catch (IOException e) {
      closeAll(e, withWriter(readers, writer));
      throw new StoreException(path + ": opening the store failed: " + e, e);
    } catch (RuntimeException e) {
      closeAll(e, withWriter(readers, writer));
      if (e instanceof StoreException store) {
        throw store;
      }
      throw new StoreException(path + ": opening the store failed: " + e, e);
    }
  }

  /**
   * Checks the store at {@code path} (header, integrity, schema, canary) without changing any of
   * its files. {@code cleanlyClosed} (the file is the one a clean close left, see
   * {@link SqliteCleanClose}) skips {@code integrity_check}, the one step whose cost grows with
   * the file.
   */
  private static void verify(Path path, KeyCanary canary, boolean cleanlyClosed) {
    Path wal = sibling(path, "-wal");
    Path copyDir = null;
    Connection c = null;
    try {
      checkHeader(path);
      if (Files.exists(wal) && Files.size(wal) > 0) {
        copyDir = privateDirectory(path);
        Path copy = copyDir.resolve("store.db");
        Files.copy(path, copy);
        Files.copy(wal, sibling(copy, "-wal"));
        c = connect(copy, false);
      } else {
        c = connectImmutable(path);
      }
      execute(c, "PRAGMA cell_size_check = ON");
      if (!cleanlyClosed) {
        execute(c, "PRAGMA cache_size = " + -verifyCacheKib(Files.size(path)));
        integrityCheck(c, path);
      }
      checkMeta(c, path, canary);
    } catch (SQLException e) {
      throw SqliteErrors.translate(e, path.toString(), "verifying the store");
    } catch (IOException e) {
      throw new StoreException(path + ": verifying the store failed: " + e, e);
    } finally {
      RuntimeException failure = null;
      if (c != null) {
        try {
          c.close();
        } catch (SQLException e) {
          failure = new StoreException(path + ": closing the check failed: " + e, e);
        }
      }
      if (copyDir != null) {
        try {
          deleteTree(copyDir);
        } catch (IOException e) {
          failure = new StoreException(path + ": cannot delete the check copy " + copyDir
              + ": " + e, e);
        }
      }
      if (failure != null) {
        throw failure;
      }
    }
  }

  /**
   * The page cache of the verifying connection, in KiB: an eighth of the file, at least SQLite's
   * default and at most {@value #MAX_VERIFY_CACHE_KIB}. {@code integrity_check} walks the table
   * once and probes every index for each row; with SQLite's default 2 MiB the index pages of a
   * large store fall out of the cache between probes and are read again (93,000 reads for the
   * 14,400 pages of a 100,000-record store). Indexes take about an eighth of a store, and a
   * larger cache only costs memory to fill (measured at 100,000 records: CPU of the check
   * 390 ms with the default, 245 ms with 6-8 MiB, 280 ms with 16 MiB, 380 ms with 32 MiB).
   */
  static long verifyCacheKib(long fileBytes) {
    return Math.max(DEFAULT_CACHE_KIB, Math.min(MAX_VERIFY_CACHE_KIB, fileBytes / 8 / 1024));
  }

  /** An owner-only directory beside {@code path} for a private copy of a store's files. */
  private static Path privateDirectory(Path path) throws IOException {
    Path dir = path.toAbsolutePath().getParent();
    String prefix = path.getFileName() + ".check-";
    if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      return Files.createTempDirectory(dir, prefix,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
    return Files.createTempDirectory(dir, prefix);
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Files.delete(file);
      }
    }
    Files.delete(dir);
  }

  /**
   * A read-only connection that neither locks nor touches {@code -wal}/{@code -shm}: only for a
   * file without a WAL, whose every committed page is in the database file itself.
   */
  private static Connection connectImmutable(Path path) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    config.resetOpenMode(SQLiteOpenMode.CREATE);
    config.setOpenMode(SQLiteOpenMode.OPEN_URI);
    return config.createConnection("jdbc:sqlite:" + path.toUri() + "?immutable=1");
  }

  /**
   * Refuses a file that cannot be an Oncely store before SQLite touches it: SQLite deletes the WAL
   * of an empty database file on open, which would destroy what quarantine should keep.
   */
  private static void checkHeader(Path path) throws IOException {
    byte[] head = new byte[HEADER_MAGIC.length];
    int read;
    try (InputStream in = Files.newInputStream(path)) {
      read = 0;
      for (int n; read < head.length && (n = in.read(head, read, head.length - read)) > 0; ) {
        read += n;
      }
    }
    long size = Files.size(path);
    if (read < head.length || size < MIN_FILE_BYTES || !Arrays.equals(head, HEADER_MAGIC)) {
      throw new StoreCorruptedException(path + " is not an Oncely store: " + size
          + " bytes, " + (read == head.length && Arrays.equals(head, HEADER_MAGIC)
              ? "too short for its schema" : "without the SQLite header")
          + " (truncated or overwritten?)");
    }
  }

  private static void create(Path path, KeyCanary canary) {
    Path fresh = sibling(path, ".new");
    try {
      for (Path leftover : filesOf(fresh)) {
        Files.deleteIfExists(leftover);
      }
      StoreFiles.createOwnerOnly(fresh);
      try (Connection c = connect(fresh, true)) {
        execute(c, "PRAGMA auto_vacuum = INCREMENTAL");
        configure(c, fresh);
        execute(c, "BEGIN IMMEDIATE");
        for (String ddl : IntentTable.create()) {
          execute(c, ddl);
        }
        putMeta(c, IntentTable.META_SCHEMA, new byte[] {IntentTable.VERSION});
        putMeta(c, IntentTable.META_ENCRYPTED, new byte[] {(byte) (canary.encrypts() ? 1 : 0)});
        putMeta(c, IntentTable.META_CANARY, canary.bytes());
        execute(c, "COMMIT");
      }
      StoreFiles.moveDurably(fresh, path);
    } catch (SQLException e) {
      throw SqliteErrors.translate(e, path.toString(), "creating the store");
    } catch (IOException e) {
      throw new StoreException(path + ": creating the store failed: " + e, e);
    }
  }

  private static Connection connect(Path path, boolean create) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(10_000);
    // Otherwise the driver matches every INSERT against a regex and runs a second statement,
    // SELECT last_insert_rowid(), in the group commit; the store never asks for generated keys.
    config.setGetGeneratedKeys(false);
    if (!create) {
      config.resetOpenMode(SQLiteOpenMode.CREATE);
    }
    return config.createConnection("jdbc:sqlite:" + path);
  }

  private static void configure(Connection c, Path path) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("PRAGMA journal_mode = WAL")) {
      String mode = rs.next() ? rs.getString(1) : "none";
      if (!"wal".equalsIgnoreCase(mode)) {
        throw new StoreException(path + ": SQLite refused write-ahead logging (journal mode is "
            + mode + "); the file system must support shared memory and locking");
      }
    }
    execute(c, "PRAGMA synchronous = FULL");
    execute(c, "PRAGMA cell_size_check = ON");
  }

  /**
   * Adds the {@code stub} column (the unfinished record's checksummed id and times) to a table created without it. Old rows keep a null
   * stub and are listed from their record; an older library ignores the column.
   */
  private static void addStubColumn(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT 1 FROM pragma_table_info('intent')"
            + " WHERE name = 'stub'")) {
      if (rs.next()) {
        return;
      }
    }
    execute(c, "ALTER TABLE intent ADD COLUMN stub BLOB");
  }

  /**
   * Adds the due-time columns and their indexes to a table created without them, in one
   * transaction (a crash leaves the table as it was or with all of them). Old rows keep null due
   * times and sit in {@code intent_due_unknown} until the store fills them in from their records;
   * an older library ignores the columns. Runs after verification, like {@link #addStubColumn}.
   */
  private static void addDueColumns(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT 1 FROM pragma_table_info('intent')"
            + " WHERE name = 'due_s'")) {
      if (rs.next()) {
        return;
      }
    }
    inTransaction(c, "ALTER TABLE intent ADD COLUMN due_s INTEGER",
        "ALTER TABLE intent ADD COLUMN due_ns INTEGER", IntentTable.DUE_INDEX,
        IntentTable.DUE_UNKNOWN_INDEX);
  }

  /** Runs {@code statements} in one immediate transaction, rolled back if one fails. */
  private static void inTransaction(Connection c, String... statements) throws SQLException {
    execute(c, "BEGIN IMMEDIATE");
    try {
      for (String sql : statements) {
        execute(c, sql);
      }
      execute(c, "COMMIT");
    } catch (SQLException e) {
      try {
        execute(c, "ROLLBACK");
      } catch (SQLException rollback) {
        e.addSuppressed(rollback);
      }
      throw e;
    }
  }

  /**
   * Replaces the {@code intent_unfinished} index of a store created before
   * {@code intent_unfinished_ids} existed, in one transaction (a crash leaves either index, and
   * either serves every query). Runs after verification, like {@link #addStubColumn}.
   */
  private static void coverUnfinishedIndex(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT 1 FROM sqlite_schema"
            + " WHERE type = 'index' AND name = 'intent_unfinished'")) {
      if (!rs.next()) {
        return;
      }
    }
    inTransaction(c, "DROP INDEX intent_unfinished", IntentTable.UNFINISHED_INDEX);
  }

  /**
   * {@code integrity_check} rather than the cheaper {@code quick_check}: only the full check
   * compares every index with its table, and a damaged lookup index would otherwise make a
   * record silently unreachable.
   */
  private static void integrityCheck(Connection c, Path path) throws SQLException {
    List<String> problems = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("PRAGMA integrity_check(5)")) {
      while (rs.next()) {
        problems.add(rs.getString(1));
      }
    } catch (SQLException e) {
      if (SqliteErrors.isCorruption(e)) {
        throw new StoreCorruptedException(path + ": PRAGMA integrity_check failed, the file is"
            + " damaged or not a database: " + e.getMessage(), e);
      }
      throw e;
    }
    if (!problems.equals(List.of("ok"))) {
      throw new StoreCorruptedException(path + ": PRAGMA integrity_check found damage: "
          + String.join("; ", problems));
    }
  }

  private static void checkMeta(Connection c, Path path, KeyCanary keyCanary)
      throws SQLException {
    byte[] schema;
    byte[] encrypted;
    byte[] canary;
    try {
      schema = meta(c, IntentTable.META_SCHEMA);
      encrypted = meta(c, IntentTable.META_ENCRYPTED);
      canary = meta(c, IntentTable.META_CANARY);
    } catch (SQLException e) {
      if (SqliteErrors.isCorruption(e)) {
        throw e;
      }
      throw new StoreCorruptedException(path + " is an SQLite file but not an Oncely store"
          + " (its schema is missing; truncated, overwritten or another program's file?): "
          + e.getMessage(), e);
    }
    if (schema == null || encrypted == null || canary == null
        || schema.length != 1 || encrypted.length != 1) {
      throw new StoreCorruptedException(path + ": the store's metadata rows are missing or damaged");
    }
    if (schema[0] > IntentTable.VERSION || schema[0] < 1) {
      throw new StoreException(path + ": store schema version " + schema[0]
          + " is not supported; this library reads version " + IntentTable.VERSION
          + " (written by a newer Oncely?). The file was not changed");
    }
    keyCanary.checkSetting(encrypted[0] == 1, path.toString());
    keyCanary.check(canary, path.toString());
  }

  private static byte[] meta(Connection c, String name) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(IntentSql.META_READ)) {
      st.setString(1, name);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? rs.getBytes(1) : null;
      }
    }
  }

  private static void putMeta(Connection c, String name, byte[] value) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(IntentSql.META_INSERT)) {
      st.setString(1, name);
      st.setBytes(2, value);
      st.executeUpdate();
    }
  }

  /** Runs one statement that returns no rows. */
  public static void execute(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static Path sibling(Path path, String suffix) {
    return path.resolveSibling(path.getFileName() + suffix);
  }

  private static Connection[] withWriter(List<Connection> readers, Connection writer) {
    List<Connection> all = new ArrayList<>(readers);
    all.add(writer);
    return all.toArray(new Connection[0]);
  }

  /** Closes each non-null connection, adding close failures to {@code primary}. */
  public static void closeAll(Throwable primary, Connection... connections) {
    for (Connection c : connections) {
      if (c != null) {
        try {
          c.close();
        } catch (SQLException e) {
          primary.addSuppressed(e);
        }
      }
    }
  }
}
