package dev.oncely.persistence.internal.sqlite;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import java.sql.SQLException;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** Turns SQLite failures into the store's typed exceptions, naming the file and the operation. */
public final class SqliteErrors {
  private static final int SQLITE_PERM = 3;
  private static final int SQLITE_READONLY = 8;
  private static final int SQLITE_IOERR = 10;
  private static final int SQLITE_CORRUPT = 11;
  private static final int SQLITE_FULL = 13;
  private static final int SQLITE_CANTOPEN = 14;
  private static final int SQLITE_NOTADB = 26;

  private SqliteErrors() {}

  /** Whether {@code e} says the file is damaged or not a database. */
  static boolean isCorruption(SQLException e) {
    int code = primaryCode(e);
    return code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
  }

  /** Returns the typed exception for a failure of {@code what} on {@code path}. */
  public static StoreException translate(SQLException e, String path, String what) {
    int code = primaryCode(e);
    String detail = e.getMessage();
    return switch (code) {
      case SQLITE_CORRUPT, SQLITE_NOTADB ->
          new StoreCorruptedException(path + ": " + what + " failed, the file is damaged: "
              + detail, e);
      case SQLITE_FULL -> new StoreException(path + ": " + what
          + " failed, the disk or file system is full: " + detail, e);
      case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN -> new StoreException(path + ": " + what
          + " failed, the file or its directory is not writable or cannot be opened: " + detail, e);
      case SQLITE_IOERR -> new StoreException(path + ": " + what + " failed with a disk I/O error: "
          + detail, e);
      default -> new StoreException(path + ": " + what + " failed: " + detail, e);
    };
  }

  private static int primaryCode(SQLException e) {
    if (e instanceof SQLiteException sqlite && sqlite.getResultCode() != SQLiteErrorCode.UNKNOWN_ERROR) {
      return sqlite.getResultCode().code & 0xff;
    }
    return e.getErrorCode() & 0xff;
  }
}
