package dev.oncely.persistence.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32;

/**
 * Durable evidence, in a small owner-only file beside a store, that the store's files are byte for
 * byte the ones its last clean close left, so the next open may skip the verification whose cost
 * grows with the files (SQLite's {@code integrity_check}, the CRC32 of both MapDB copies) and check
 * only what is bounded. One rule for both engines; each engine says what its close guarantees
 * before it records and what its open still checks.
 *
 * <p><b>What it records.</b> For each file, in the order given: its size, its identity
 * ({@link BasicFileAttributes#fileKey()}: device and inode), a CRC32 of its first
 * {@value #HEAD} bytes (SQLite's first page at any page size, MapDB's header) and its modification
 * time, which {@link #record} first sets to one second before now; then an engine's payload (the
 * MapDB engine keeps its per-block CRC32s there); then a CRC32 of all of it.
 *
 * <p><b>Why a match proves nothing wrote the files.</b> Any write after the close (the engine,
 * another program, a restore in place, a test flipping a bit) sets the written file's modification
 * time to the time of that write, later than the recorded one, one second back, whatever the file
 * system's timestamp granularity: a write in the same millisecond as the close is seen.
 * Truncation and growth change the size, a file replaced by another (another store's, a backup)
 * has another identity, an edited marker fails its own CRC32. The engines delete the marker
 * durably ({@link #forget}) after their open's checks and before their first write, so a crash
 * during a run finds no marker, and a refused open leaves it as it was.
 *
 * <p><b>What it cannot see.</b> Damage that no write caused (bad sectors, bit rot on the medium
 * after the close), and a foreign write while the clock was stepped back by more than a second;
 * the full verification sees both, and runs whenever the marker is missing.
 *
 * <p>Every failure to record only costs the next open its full verification: {@link #record}
 * never throws, {@link #read} answers "no match" for anything it cannot read.
 */
public final class CleanCloseMarker {
  /** Bytes at the start of each file whose CRC32 the marker keeps. */
  static final int HEAD = 64 * 1024;
  private static final String MAGIC = "oncely-clean-close 1";

  private CleanCloseMarker() {}

  /**
   * Sets each file's modification time one second back and writes {@code marker} describing the
   * files as they are now, with {@code payload}, owner-only, forced and renamed into place
   * durably. Call only once every file is closed, forced and quiescent, under the store's owner
   * lock.
   *
   * @return whether the marker was written
   */
  public static boolean record(Path marker, List<Path> files, byte[] payload) {
    try {
      FileTime oneSecondBack =
          FileTime.from(Instant.now().minusSeconds(1).truncatedTo(ChronoUnit.MILLIS));
      for (Path file : files) {
        Files.setLastModifiedTime(file, oneSecondBack);
      }
      byte[] body = body(files, payload);
      Path temp = marker.resolveSibling(marker.getFileName() + ".new");
      Files.deleteIfExists(temp);
      try (FileChannel out = StoreFiles.openOwnerOnly(temp)) {
        ByteBuffer bytes = ByteBuffer.wrap(body);
        while (bytes.hasRemaining()) {
          out.write(bytes);
        }
        out.force(true);
      }
      StoreFiles.moveDurably(temp, marker);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * The payload {@code marker} holds when every one of {@code files} is exactly as the marker
   * describes it; empty when the marker is missing, damaged, or any file differs. Reads the marker
   * and the first {@value #HEAD} bytes of each file only; changes nothing.
   */
  public static Optional<byte[]> read(Path marker, List<Path> files) {
    try {
      byte[] stored = Files.readAllBytes(marker);
      if (stored.length < Long.BYTES) {
        return Optional.empty();
      }
      byte[] body = Arrays.copyOf(stored, stored.length - Long.BYTES);
      long crc = ByteBuffer.wrap(stored, body.length, Long.BYTES).getLong();
      if (crc != crcOf(body)) {
        return Optional.empty();
      }
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(body));
      if (!MAGIC.equals(in.readUTF()) || in.readInt() != files.size()) {
        return Optional.empty();
      }
      for (Path file : files) {
        if (!in.readUTF().equals(stateOf(file))) {
          return Optional.empty();
        }
      }
      byte[] payload = new byte[in.readInt()];
      in.readFully(payload);
      return in.available() == 0 ? Optional.of(payload) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Deletes {@code marker} durably: from now on the files may change. Call after the open's checks
   * and before its first write.
   */
  public static void forget(Path marker) throws IOException {
    try {
      Files.delete(marker);
    } catch (NoSuchFileException e) {
      return;
    }
    StoreFiles.syncDirectory(marker.toAbsolutePath().getParent());
  }

  private static byte[] body(List<Path> files, byte[] payload) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeUTF(MAGIC);
    out.writeInt(files.size());
    for (Path file : files) {
      out.writeUTF(stateOf(file));
    }
    out.writeInt(payload.length);
    out.write(payload);
    out.writeLong(crcOf(bytes.toByteArray()));
    out.flush();
    return bytes.toByteArray();
  }

  private static String stateOf(Path file) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
    return file.getFileName() + " size=" + attributes.size()
        + " modified=" + attributes.lastModifiedTime().toInstant()
        + " file=" + attributes.fileKey()
        + " head=" + Long.toHexString(headCrc(file));
  }

  private static long headCrc(Path file) throws IOException {
    byte[] head = new byte[HEAD];
    int read = 0;
    try (InputStream in = Files.newInputStream(file, StandardOpenOption.READ)) {
      for (int n; read < head.length && (n = in.read(head, read, head.length - read)) > 0; ) {
        read += n;
      }
    }
    CRC32 crc = new CRC32();
    crc.update(head, 0, read);
    return crc.getValue();
  }

  private static long crcOf(byte[] bytes) {
    CRC32 crc = new CRC32();
    crc.update(bytes);
    return crc.getValue();
  }
}
