package dev.oncely.persistence.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.zip.CRC32;

/**
 * The clean-close marker of an SQLite store, {@code <file>.clean}: proof that the database file
 * is, byte for byte, the one a clean close left, so the next open may skip the full
 * {@code integrity_check} (whose cost grows with the file) and check only the header, schema
 * version and canary.
 *
 * <p><b>What it records.</b> Written after every connection closed and SQLite folded and removed
 * its WAL: the file's size, its identity ({@link BasicFileAttributes#fileKey()}: device and
 * inode), a CRC32 of its first page (SQLite's header with its change counter, and the schema
 * table's root), and its modification time, which the close first sets to one second before
 * now. Any later write to the file (by SQLite, another program, a restore, a test flipping a bit)
 * sets the modification time to the time of that write, which is later than the recorded one
 * whatever the file system's timestamp granularity; truncation and growth change the size; a
 * replaced file has another inode. The marker ends with a CRC32 of its own lines.
 *
 * <p><b>Why skipping the check keeps the guarantee.</b> The file the marker describes was verified
 * when it was opened (fully, or through an earlier marker, back to a full check) and since then
 * only written by SQLite under this store's owner lock, committing whole transactions; it is
 * therefore as sound as a full check would find it. The marker is deleted, durably, after the
 * open's checks and before the writer connection exists, so a crash during the run leaves no
 * marker and the next open runs the full check, and a refused open leaves it as it was (nothing
 * of the store is touched). What it cannot see is damage no write caused (bad sectors, bit rot
 * on the medium after the close); SQLite reports such a page when a read meets it, and every
 * record carries its own CRC32, as it did between two opens before. A clock stepped back by more
 * than a second between the close and a foreign write could hide that write; the header and
 * first-page CRC still have to match.
 *
 * <p>Every failure to write the marker only costs the next open its full check: it is never an
 * error of the close.
 */
public final class SqliteCleanClose {
  private static final String MAGIC = "oncely-sqlite-clean 1";
  /** SQLite's header field holding the page size (1 meaning 65,536). */
  private static final int PAGE_SIZE_AT = 16;

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
    try {
      if (Files.exists(wal(database))) {
        return false;
      }
      Files.setLastModifiedTime(database,
          FileTime.from(Instant.now().minusSeconds(1).truncatedTo(ChronoUnit.MILLIS)));
      String state = stateOf(database);
      Path temp = database.resolveSibling(database.getFileName() + ".clean.new");
      Files.deleteIfExists(temp);
      try (FileChannel out = StoreFiles.openOwnerOnly(temp)) {
        out.write(ByteBuffer.wrap(withCrc(state).getBytes(StandardCharsets.US_ASCII)));
        out.force(true);
      }
      StoreFiles.moveDurably(temp, markerOf(database));
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * Whether {@code database} is exactly the file its marker describes and has no WAL: then its
   * last close was clean and nothing wrote it since. Reads the marker and the first page only.
   */
  public static boolean matches(Path database) {
    try {
      Path wal = wal(database);
      if (Files.exists(wal) && Files.size(wal) > 0) {
        return false;
      }
      byte[] marker = Files.readAllBytes(markerOf(database));
      return withCrc(stateOf(database))
          .equals(new String(marker, StandardCharsets.US_ASCII));
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * Deletes the marker durably: from now on the file may change. Call before the first connection
   * that may write.
   */
  public static void forget(Path database) throws IOException {
    try {
      Files.delete(markerOf(database));
    } catch (NoSuchFileException e) {
      return;
    }
    StoreFiles.syncDirectory(database.toAbsolutePath().getParent());
  }

  private static String stateOf(Path database) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(database, BasicFileAttributes.class);
    return MAGIC + "\nsize=" + attributes.size()
        + "\nmodified=" + attributes.lastModifiedTime().toInstant()
        + "\nfile=" + attributes.fileKey()
        + "\npage1=" + Long.toHexString(firstPageCrc(database)) + "\n";
  }

  private static long firstPageCrc(Path database) throws IOException {
    byte[] head = new byte[PAGE_SIZE_AT + 2];
    try (InputStream in = Files.newInputStream(database, StandardOpenOption.READ)) {
      int pageSize = readFully(in, head) < head.length ? 0
          : ((head[PAGE_SIZE_AT] & 0xff) << 8) | (head[PAGE_SIZE_AT + 1] & 0xff);
      byte[] page = new byte[pageSize == 1 ? 65_536 : Math.max(pageSize, head.length)];
      System.arraycopy(head, 0, page, 0, head.length);
      int read = head.length + readFully(in, page, head.length);
      CRC32 crc = new CRC32();
      crc.update(page, 0, read);
      return crc.getValue();
    }
  }

  private static int readFully(InputStream in, byte[] into) throws IOException {
    return readFully(in, into, 0);
  }

  private static int readFully(InputStream in, byte[] into, int from) throws IOException {
    int read = 0;
    for (int n; from + read < into.length
        && (n = in.read(into, from + read, into.length - from - read)) > 0; ) {
      read += n;
    }
    return read;
  }

  private static String withCrc(String state) {
    CRC32 crc = new CRC32();
    crc.update(state.getBytes(StandardCharsets.US_ASCII));
    return state + "crc=" + Long.toHexString(crc.getValue()) + "\n";
  }

  private static Path wal(Path database) {
    return database.resolveSibling(database.getFileName() + "-wal");
  }
}
