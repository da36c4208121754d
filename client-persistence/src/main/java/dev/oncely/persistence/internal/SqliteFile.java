package dev.oncely.persistence.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.RecordCodec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteOpenMode;

/**
 * Creates, opens and verifies the SQLite file of a {@code SqliteIntentStore}: schema, pragmas,
 * {@code PRAGMA integrity_check}, schema version and the encryption canary.
 *
 * <p>A new file is built as {@code <name>.new}, closed (which checkpoints and removes its WAL) and
 * renamed into place, so an existing store file always holds a committed schema: an existing
 * file without one was truncated or overwritten and is reported as corrupt, never re-initialised.
 */
public final class SqliteFile {
  /** The schema version this code writes and reads. */
  public static final int SCHEMA_VERSION = 1;

  private static final String[] SCHEMA = {
      "CREATE TABLE oncely_meta (name TEXT PRIMARY KEY, value BLOB NOT NULL)",
      "CREATE TABLE intent ("
          + " lookup BLOB NOT NULL PRIMARY KEY,"
          + " business BLOB UNIQUE,"
          + " open_s INTEGER, open_ns INTEGER,"
          + " purge_s INTEGER, purge_ns INTEGER,"
          + " record BLOB NOT NULL,"
          + " stub BLOB)",
      "CREATE INDEX intent_unfinished ON intent(open_s, open_ns) WHERE open_s IS NOT NULL",
      "CREATE INDEX intent_expiry ON intent(purge_s, purge_ns) WHERE purge_s IS NOT NULL"};

  private static final byte[] HEADER_MAGIC =
      "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);
  /** A committed schema spans at least two pages of at least 512 bytes. */
  private static final long MIN_FILE_BYTES = 1024;

  private static final IntentRecord CANARY = IntentRecord.builder()
      .id(IntentId.of("oncely", "canary", "canary"))
      .method("GET")
      .url("oncely:canary")
      .fingerprint("canary")
      .state(IntentState.COMPLETED)
      .createdAt(Instant.EPOCH)
      .updatedAt(Instant.EPOCH)
      .expiresAt(Instant.EPOCH)
      .build();

  /** Read-only connections opened beside the writer. */
  public static final int READERS = 4;

  /** The writer (owned by the committer thread) and the reader connections of an open file. */
  public record Connections(Connection writer, List<Connection> readers) {}

  private SqliteFile() {}

  /** The files SQLite keeps for {@code path}: the database, its WAL and its shared memory index. */
  public static List<Path> filesOf(Path path) {
    return List.of(path, sibling(path, "-wal"), sibling(path, "-shm"));
  }

  /**
   * Opens {@code path}, creating a new store if neither it nor its WAL exists, and verifies it.
   * {@code encrypted} says whether {@code codec} seals records.
   *
   * @throws StoreCorruptedException if the file is damaged, not a database or not an Oncely store
   * @throws StoreEncryptionException if the encryption setting or key does not match the file's
   * @throws StoreException for any other failure (unreadable, newer schema, I/O)
   */
  public static Connections open(Path path, RecordCodec codec, boolean encrypted) {
    if (!Files.exists(path)) {
      if (Files.exists(sibling(path, "-wal"))) {
        throw new StoreCorruptedException(path + " is missing but its write-ahead log "
            + sibling(path, "-wal") + " exists; the database file was deleted or moved");
      }
      create(path, codec, encrypted);
    }
    Connection writer = null;
    List<Connection> readers = new ArrayList<>();
    try {
      for (Path file : filesOf(path)) {
        StoreFiles.tightenToOwner(file);
      }
      checkHeader(path);
      writer = connect(path, false);
      // Verify with reads only: a damaged file must be left exactly as it was found.
      execute(writer, "PRAGMA cell_size_check = ON");
      integrityCheck(writer, path);
      checkMeta(writer, path, codec, encrypted);
      configure(writer, path);
      addStubColumn(writer);
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

  private static void create(Path path, RecordCodec codec, boolean encrypted) {
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
        for (String ddl : SCHEMA) {
          execute(c, ddl);
        }
        putMeta(c, "schema", new byte[] {SCHEMA_VERSION});
        putMeta(c, "encrypted", new byte[] {(byte) (encrypted ? 1 : 0)});
        putMeta(c, "canary", codec.encode(CANARY));
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
   * Adds the {@code stub} column (issue 11) to a table created without it. Old rows keep a null
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

  private static void checkMeta(Connection c, Path path, RecordCodec codec, boolean encrypts)
      throws SQLException {
    byte[] schema;
    byte[] encrypted;
    byte[] canary;
    try {
      schema = meta(c, "schema");
      encrypted = meta(c, "encrypted");
      canary = meta(c, "canary");
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
    if (schema[0] > SCHEMA_VERSION || schema[0] < 1) {
      throw new StoreException(path + ": store schema version " + schema[0]
          + " is not supported; this library reads version " + SCHEMA_VERSION
          + " (written by a newer Oncely?). The file was not changed");
    }
    boolean fileEncrypted = encrypted[0] == 1;
    if (fileEncrypted != encrypts) {
      throw new StoreEncryptionException(path + (fileEncrypted
          ? ": the store is encrypted; open it with the StoreEncryption it was created with"
          : ": the store was created without encryption; open it without StoreEncryption"), null);
    }
    codec.decode(canary, path + ": encryption canary");
  }

  private static byte[] meta(Connection c, String name) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT value FROM oncely_meta WHERE name = ?")) {
      st.setString(1, name);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? rs.getBytes(1) : null;
      }
    }
  }

  private static void putMeta(Connection c, String name, byte[] value) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(
        "INSERT INTO oncely_meta(name, value) VALUES (?, ?)")) {
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
