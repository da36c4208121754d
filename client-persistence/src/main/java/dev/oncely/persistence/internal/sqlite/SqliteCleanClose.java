package dev.oncely.persistence.internal.sqlite;

import dev.oncely.persistence.internal.CleanCloseMarker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The clean-close marker of an SQLite store, {@code <file>.clean} (a {@link CleanCloseMarker} of
 * the database file): proof that the database file is, byte for byte, the one a clean close left,
 * so the next open may skip the full {@code integrity_check} (whose cost grows with the file) and
 * check only the header, schema version and canary.
 *
 * <p><b>When it is recorded.</b> After every connection closed and SQLite folded and removed its
 * WAL; a close whose WAL is still there (a connection did not close) records nothing.
 *
 * <p><b>Why skipping the check keeps the guarantee.</b> The file the marker describes was verified
 * when it was opened (fully, or through an earlier marker, back to a full check) and since then
 * only written by SQLite under this store's owner lock, committing whole transactions; it is
 * therefore as sound as a full check would find it. The marker is deleted, durably, after the
 * open's checks and before the writer connection exists, so a crash during the run leaves no
 * marker and the next open runs the full check, and a refused open leaves it as it was (nothing
 * of the store is touched). Any write, truncation or replacement of the file after the close
 * makes the marker stop matching ({@link CleanCloseMarker} says how). What it cannot see is damage
 * no write caused (bad sectors, bit rot on the medium after the close); SQLite reports such a page
 * when a read meets it, and every record carries its own CRC32, as it did between two opens
 * before.
 */
public final class SqliteCleanClose {
  private static final byte[] NO_PAYLOAD = new byte[0];

  private SqliteCleanClose() {}

  /** The marker file of {@code database}. */
  public static Path markerOf(Path database) {
    return database.resolveSibling(database.getFileName() + ".clean");
  }

  /**
   * Records that {@code database} was closed cleanly, unless its WAL is still there (a connection
   * did not close). Call after every connection closed, while the owner lock is held.
   *
   * @return whether the marker was written
   */
  public static boolean record(Path database) {
    return !Files.exists(wal(database))
        && CleanCloseMarker.record(markerOf(database), List.of(database), NO_PAYLOAD);
  }

  /**
   * Whether {@code database} is exactly the file its marker describes and has no WAL: then its
   * last close was clean and nothing wrote it since. Reads the marker and the file's first
   * {@value CleanCloseMarker#HEAD} bytes only.
   */
  public static boolean matches(Path database) {
    try {
      Path wal = wal(database);
      if (Files.exists(wal) && Files.size(wal) > 0) {
        return false;
      }
    } catch (IOException e) {
      return false;
    }
    return CleanCloseMarker.read(markerOf(database), List.of(database)).isPresent();
  }

  /**
   * Deletes the marker durably: from now on the file may change. Call before the first connection
   * that may write.
   */
  public static void forget(Path database) throws IOException {
    CleanCloseMarker.forget(markerOf(database));
  }

  private static Path wal(Path database) {
    return database.resolveSibling(database.getFileName() + "-wal");
  }
}
