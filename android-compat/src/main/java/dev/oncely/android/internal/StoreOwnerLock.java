package dev.oncely.android.internal;

import dev.oncely.client.StoreException;
import dev.oncely.client.StoreLockedException;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.util.HashSet;
import java.util.Set;

/**
 * Makes one store instance the only owner of a database file, across processes (an app's
 * {@code :remote} process, say) and within one: an exclusive lock on a side file
 * {@code <database>.lock}, held until {@link #release()}, plus a process-wide set of held lock
 * files. SQLite itself would let two owners write safely, but two clients driving the same intents
 * would each send it.
 *
 * <p>The set is checked <em>before</em> the lock file is opened: file locks are POSIX record locks
 * on Android, and closing any descriptor of a file drops every lock the process holds on it, so a
 * refused second opener that opened and closed the lock file would silently free the first owner.
 * The lock file is never deleted (two processes could then lock two different files of one name).
 */
public final class StoreOwnerLock {
  private static final Set<String> HELD = new HashSet<>();

  private final String heldKey;
  private final RandomAccessFile file;
  private final FileLock lock;
  private boolean released;

  private StoreOwnerLock(String heldKey, RandomAccessFile file, FileLock lock) {
    this.heldKey = heldKey;
    this.file = file;
    this.lock = lock;
  }

  /**
   * Takes the lock for {@code database}.
   *
   * @throws StoreLockedException if another process or store instance holds it; a refusal in
   *     this process opens no descriptor, so the owner's lock stays intact
   * @throws StoreException if the lock file cannot be created or locked
   */
  public static StoreOwnerLock acquire(File database) {
    File lockFile = new File(database.getPath() + ".lock");
    String heldKey = canonical(lockFile);
    synchronized (HELD) {
      if (!HELD.add(heldKey)) {
        throw new StoreLockedException("the intent store " + database + " is already open in this"
            + " process; share one store instance", null);
      }
    }
    RandomAccessFile raf = null;
    try {
      raf = new RandomAccessFile(lockFile, "rw");
      FileLock lock;
      try {
        lock = raf.getChannel().tryLock();
      } catch (OverlappingFileLockException e) {
        throw new StoreLockedException("the intent store " + database + " is locked by other"
            + " code in this process (" + lockFile + ")", e);
      }
      if (lock == null) {
        throw new StoreLockedException("the intent store " + database + " is open in another"
            + " process; share one store instance", null);
      }
      return new StoreOwnerLock(heldKey, raf, lock);
    } catch (IOException | RuntimeException e) {
      // Closing here is safe: this process held no lock on the file (the set said so).
      closeQuietly(raf);
      unhold(heldKey);
      if (e instanceof StoreException typed) {
        throw typed;
      }
      throw new StoreException("cannot lock " + lockFile, e);
    }
  }

  /** Whether this instance still holds the lock (false after {@link #release()}). */
  public synchronized boolean isHeld() {
    return !released && lock.isValid();
  }

  /** Releases the lock. Idempotent. */
  public synchronized void release() {
    if (released) {
      return;
    }
    released = true;
    try {
      if (lock.isValid()) {
        lock.release();
      }
    } catch (IOException ignored) {
      // Closing the file below releases the lock as well.
    }
    closeQuietly(file);
    unhold(heldKey);
  }

  private static void unhold(String heldKey) {
    synchronized (HELD) {
      HELD.remove(heldKey);
    }
  }

  private static String canonical(File lockFile) {
    try {
      return lockFile.getCanonicalPath();
    } catch (IOException e) {
      return lockFile.getAbsolutePath();
    }
  }

  private static void closeQuietly(RandomAccessFile raf) {
    if (raf == null) {
      return;
    }
    try {
      raf.close();
    } catch (IOException ignored) {
      // Nothing is left to release.
    }
  }
}
