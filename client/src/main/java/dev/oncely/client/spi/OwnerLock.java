package dev.oncely.client.spi;

import dev.oncely.client.StoreException;
import dev.oncely.client.StoreLockedException;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Function;
import org.codehaus.mojo.animal_sniffer.IgnoreJRERequirement;

/**
 * Makes one store instance the only owner of a store file, across processes and within one: an
 * exclusive {@link FileLock} on the sidecar {@code <file>.lock}, held until {@link #close()}, plus
 * a process-wide set of held lock files. A database may well let two owners write safely, but two
 * clients would then drive the same intents.
 *
 * <p>The set is checked <em>before</em> the lock file is opened: file locks are POSIX record locks
 * on Linux and Android, and closing any descriptor of a file drops every lock the process holds
 * on it, so a refused second opener that opened and closed the lock file would silently free the
 * first owner. The lock file is never deleted (two processes could then lock two different files
 * of one name). It is owner-only where the file system has permissions and holds the owner's pid,
 * for messages only. Thread-safe.
 */
public final class OwnerLock implements AutoCloseable {
  private static final Set<String> HELD = new HashSet<>();

  private final File lockFile;
  private final String heldKey;
  private final RandomAccessFile file;
  private final FileLock lock;
  private boolean released;

  private OwnerLock(File lockFile, String heldKey, RandomAccessFile file, FileLock lock) {
    this.lockFile = lockFile;
    this.heldKey = heldKey;
    this.file = file;
    this.lock = lock;
  }

  /** The sidecar lock file of {@code store}. */
  public static File lockFileOf(File store) {
    return new File(store.getPath() + ".lock");
  }

  /**
   * Takes ownership of {@code store}; its directory must exist.
   *
   * @throws StoreLockedException naming the store if another instance in this process or another
   *     process owns it; a refusal in this process opens no descriptor, so the owner's lock stays
   * @throws StoreException if the lock file cannot be created or locked
   */
  public static OwnerLock acquire(File store) {
    File lockFile = lockFileOf(store);
    String heldKey = canonical(lockFile);
    synchronized (HELD) {
      if (!HELD.add(heldKey)) {
        throw new StoreLockedException(store + " is already open in this process (lock "
            + lockFile + "); share one store instance across threads", null);
      }
    }
    RandomAccessFile raf = null;
    try {
      raf = new RandomAccessFile(lockFile, "rw");
      ownerOnly(lockFile);
      FileChannel channel = raf.getChannel();
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        throw new StoreLockedException(store + " is locked by other code in this process (lock "
            + lockFile + ")", e);
      }
      if (lock == null) {
        throw new StoreLockedException(store + " is open in another process (lock " + lockFile
            + " is held" + holderOf(channel) + "); share one store instance", null);
      }
      channel.truncate(0);
      channel.write(ByteBuffer.wrap(
          (currentPid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
      return new OwnerLock(lockFile, heldKey, raf, lock);
    } catch (IOException | RuntimeException e) {
      // Closing here is safe: this process held no lock on the file (the set said so).
      closeQuietly(raf, e);
      unhold(heldKey);
      if (e instanceof StoreException typed) {
        throw typed;
      }
      throw new StoreException("cannot lock " + lockFile + ": " + e, e);
    }
  }

  /**
   * Takes ownership of {@code store} and opens it with {@code open}, which receives the lock to
   * keep; if {@code open} throws, the lock is released before the failure propagates (a failure to
   * release is added to it as suppressed), so a refused open never leaves the store owned.
   *
   * @throws StoreLockedException as {@link #acquire}
   * @throws StoreException as {@link #acquire}
   */
  public static <T> T openOwned(File store, Function<OwnerLock, T> open) {
    OwnerLock lock = acquire(store);
    try {
      return open.apply(lock);
    } catch (RuntimeException | Error e) {
      try {
        lock.close();
      } catch (RuntimeException closeFailure) {
        e.addSuppressed(closeFailure);
      }
      throw e;
    }
  }

  /** The sidecar file that is locked. */
  public File lockFile() {
    return lockFile;
  }

  /** Whether this instance still holds the lock (false after {@link #close()}). */
  public synchronized boolean isHeld() {
    return !released && lock.isValid();
  }

  /**
   * Releases the lock and closes its descriptor. Idempotent.
   *
   * @throws StoreException if the descriptor cannot be closed; the lock is given up all the same
   */
  @Override
  public synchronized void close() {
    if (released) {
      return;
    }
    released = true;
    try {
      if (lock.isValid()) {
        lock.release();
      }
      file.close();
    } catch (IOException e) {
      throw new StoreException("cannot release the lock " + lockFile + ": " + e, e);
    } finally {
      unhold(heldKey);
    }
  }

  private static void unhold(String heldKey) {
    synchronized (HELD) {
      HELD.remove(heldKey);
    }
  }

  /** Owner read and write only; a file system without permissions ignores the request. */
  private static void ownerOnly(File file) {
    file.setReadable(false, false);
    file.setReadable(true, true);
    file.setWritable(false, false);
    file.setWritable(true, true);
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

  private static String canonical(File lockFile) {
    try {
      return lockFile.getCanonicalPath();
    } catch (IOException e) {
      return lockFile.getAbsolutePath();
    }
  }

  /** This process's id, or "unknown" where {@code ProcessHandle} is missing (Android). */
  @IgnoreJRERequirement
  private static String currentPid() {
    try {
      return Long.toString(ProcessHandle.current().pid());
    } catch (LinkageError e) {
      return "unknown";
    }
  }

  private static void closeQuietly(RandomAccessFile raf, Exception primary) {
    if (raf == null) {
      return;
    }
    try {
      raf.close();
    } catch (IOException e) {
      primary.addSuppressed(e);
    }
  }
}
