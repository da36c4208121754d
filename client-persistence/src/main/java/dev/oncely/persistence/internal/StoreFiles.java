package dev.oncely.persistence.internal;

import dev.oncely.client.StoreException;
import dev.oncely.client.spi.Quarantine;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * File-system chores every durable engine shares: directory checks, owner-only files (POSIX 600,
 * directories 700) where the file system has POSIX permissions, durable renames and moving
 * damaged files aside.
 */
public final class StoreFiles {
  private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> OWNER_DIR = PosixFilePermissions.fromString("rwx------");

  private StoreFiles() {}

  /**
   * Makes sure the directory of {@code file} exists (creating it owner-only if missing), is a
   * directory and is writable.
   *
   * @throws StoreException naming the directory and what is wrong
   */
  public static void checkDirectory(Path file) {
    Path dir = file.toAbsolutePath().getParent();
    if (dir == null) {
      throw new StoreException(file + " has no parent directory");
    }
    try {
      if (!Files.exists(dir)) {
        boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
        Files.createDirectories(dir, posix ? new FileAttribute<?>[] {
            PosixFilePermissions.asFileAttribute(OWNER_DIR)} : new FileAttribute<?>[0]);
        if (posix) {
          Files.setPosixFilePermissions(dir, OWNER_DIR);
        }
      }
    } catch (IOException e) {
      throw new StoreException("cannot create the store directory " + dir + ": " + e, e);
    }
    if (!Files.isDirectory(dir)) {
      throw new StoreException("the store directory " + dir + " is not a directory");
    }
    if (!Files.isWritable(dir) || !Files.isExecutable(dir)) {
      throw new StoreException("the store directory " + dir + " is not writable by this process");
    }
  }

  /** Opens {@code file} for writing, creating it owner-only, and tightens looser permissions. */
  public static FileChannel openOwnerOnly(Path file) throws IOException {
    createOwnerOnly(file);
    return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
  }

  /**
   * Creates an empty owner-only file unless it exists; an existing file readable by others gets
   * owner-only permissions.
   */
  public static void createOwnerOnly(Path file) throws IOException {
    boolean posix = posix(file.toAbsolutePath().getParent());
    try {
      if (posix) {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_FILE));
        Files.setPosixFilePermissions(file, OWNER_FILE);
      } else {
        Files.createFile(file);
      }
    } catch (FileAlreadyExistsException e) {
      tightenToOwner(file);
    }
  }

  /** Sets owner-only permissions on {@code file} if it exists and the file system has them. */
  public static void tightenToOwner(Path file) throws IOException {
    if (Files.exists(file) && posix(file.toAbsolutePath().getParent())
        && !Files.getPosixFilePermissions(file).equals(OWNER_FILE)) {
      Files.setPosixFilePermissions(file, OWNER_FILE);
    }
  }

  /** Renames {@code from} to {@code to} atomically and makes the rename durable. */
  public static void moveDurably(Path from, Path to) throws IOException {
    Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    syncDirectory(to.toAbsolutePath().getParent());
  }

  /** Flushes a directory's entries to disk (where the platform allows opening directories). */
  static void syncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      if (posix(dir)) {
        throw e;
      }
    }
  }

  /**
   * Moves each existing file in {@code files} aside under its {@link Quarantine#target} name.
   * Nothing is deleted.
   *
   * @return the new paths, in the order of {@code files}
   */
  public static List<Path> quarantine(List<Path> files, Instant now) throws IOException {
    String suffix = Quarantine.suffix(now);
    List<Path> moved = new ArrayList<>();
    for (Path file : files) {
      if (Files.exists(file)) {
        Path target = file.resolveSibling(
            Quarantine.target(new java.io.File(file.toString()), suffix).getName());
        Files.move(file, target, StandardCopyOption.ATOMIC_MOVE);
        moved.add(target);
      }
    }
    if (!moved.isEmpty()) {
      syncDirectory(moved.get(0).toAbsolutePath().getParent());
    }
    return moved;
  }

  private static boolean posix(Path dir) {
    return dir != null && Files.exists(dir)
        && Files.getFileAttributeView(dir, java.nio.file.attribute.PosixFileAttributeView.class)
            != null;
  }
}
