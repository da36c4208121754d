package dev.oncely.persistence.internal;

import dev.oncely.client.StoreException;
import dev.oncely.client.StoreLockedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.codehaus.mojo.animal_sniffer.IgnoreJRERequirement;

/**
 * Makes one store instance the only owner of a store file: an exclusive {@link FileLock} on the
 * sidecar {@code <file>.lock}, plus a JVM-wide set of held paths.
 *
 * <p>The set is checked <em>before</em> any channel is opened because on Linux (POSIX record
 * locks) closing any descriptor of a file drops every lock this process holds on it: a refused
 * second opener in the same JVM that opened and closed the lock file would silently free the
 * first owner's lock. The lock file is never deleted (deleting it would let two processes lock
 * two different inodes under one name). It holds the owner's pid, for error messages only.
 */
public final class OwnerLock implements AutoCloseable {
  private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

  private final Path lockFile;
  private final Path heldKey;
  private final FileChannel channel;
  private final FileLock lock;

  private OwnerLock(Path lockFile, Path heldKey, FileChannel channel, FileLock lock) {
    this.lockFile = lockFile;
    this.heldKey = heldKey;
    this.channel = channel;
    this.lock = lock;
  }

  /** The sidecar lock file of {@code store}. */
  public static Path lockFileOf(Path store) {
    return store.resolveSibling(store.getFileName() + ".lock");
  }

  /**
   * Takes ownership of {@code store}; its directory must exist.
   *
   * @throws StoreLockedException if another instance in this JVM or another process owns it;
   *     no descriptor stays open
   * @throws StoreException if the lock file cannot be created or locked
   */
  public static OwnerLock acquire(Path store) {
    Path lockFile = lockFileOf(store);
    Path heldKey = canonical(lockFile);
    if (!HELD.add(heldKey)) {
      throw new StoreLockedException(store + " is already open in this JVM (lock " + lockFile
          + "); share one store instance across threads", null);
    }
    FileChannel channel = null;
    try {
      channel = StoreFiles.openOwnerOnly(lockFile);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        throw new StoreLockedException(store + " is locked by other code in this JVM (lock "
            + lockFile + ")", e);
      }
      if (lock == null) {
        throw new StoreLockedException(store + " is owned by another process (lock " + lockFile
            + " is held" + holderOf(channel) + ")", null);
      }
      channel.truncate(0);
      channel.write(ByteBuffer.wrap(
          (currentPid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
      return new OwnerLock(lockFile, heldKey, channel, lock);
    } catch (IOException | RuntimeException e) {
      closeQuietly(channel, e);
      HELD.remove(heldKey);
      if (e instanceof StoreException typed) {
        throw typed;
      }
      throw new StoreException("cannot lock " + lockFile + ": " + e, e);
    }
  }

  /** The sidecar file that is locked. */
  public Path lockFile() {
    return lockFile;
  }

  /** Releases the lock and closes its descriptor. Idempotent. */
  @Override
  public void close() {
    try {
      if (channel.isOpen()) {
        lock.release();
        channel.close();
      }
    } catch (IOException e) {
      throw new StoreException("cannot release the lock " + lockFile + ": " + e, e);
    } finally {
      HELD.remove(heldKey);
    }
  }

  private static String holderOf(FileChannel channel) {
    try {
      ByteBuffer buffer = ByteBuffer.allocate(24);
      channel.read(buffer, 0);
      String pid = new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII)
          .trim();
      return pid.matches("\\d{1,19}") ? " by pid " + pid : "";
    } catch (IOException e) {
      return "";
    }
  }

  private static Path canonical(Path lockFile) {
    Path absolute = lockFile.toAbsolutePath().normalize();
    try {
      return absolute.getParent().toRealPath().resolve(absolute.getFileName());
    } catch (IOException e) {
      return absolute;
    }
  }

  /** This process's id for the lock file, or "unknown" where ProcessHandle is missing (Android). */
  @IgnoreJRERequirement
  private static String currentPid() {
    try {
      return Long.toString(ProcessHandle.current().pid());
    } catch (LinkageError e) {
      return "unknown";
    }
  }

  private static void closeQuietly(FileChannel channel, Exception primary) {
    if (channel == null) {
      return;
    }
    try {
      channel.close();
    } catch (IOException e) {
      primary.addSuppressed(e);
    }
  }
}
