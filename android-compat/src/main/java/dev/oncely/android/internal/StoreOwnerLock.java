package dev.oncely.android.internal;

import dev.oncely.client.spi.StoreException;
import dev.oncely.client.spi.StoreLockedException;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;

/**
 * Makes one store instance the only owner of a database file, across processes (an app's
 * {@code :remote} process, say) and within one: an exclusive lock on a side file
 * {@code <database>.lock}, held until {@link #release()}. SQLite itself would let two owners
 * write safely, but two clients driving the same intents would each send it.
 */
public final class StoreOwnerLock {
  private final RandomAccessFile file;
  private final FileLock lock;

  private StoreOwnerLock(RandomAccessFile file, FileLock lock) {
    this.file = file;
    this.lock = lock;
  }

  /**
   * Takes the lock for {@code database}.
   *
   * @throws StoreLockedException if another process or store instance holds it
   * @throws StoreException if the lock file cannot be created
   */
  public static StoreOwnerLock acquire(File database) {
    File lockFile = new File(database.getPath() + ".lock");
    RandomAccessFile raf;
    try {
      raf = new RandomAccessFile(lockFile, "rw");
    } catch (IOException e) {
      throw new StoreException("cannot create the lock file " + lockFile, e);
    }
    FileLock lock;
    try {
      lock = raf.getChannel().tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    } catch (IOException e) {
      closeQuietly(raf);
      throw new StoreException("cannot lock " + lockFile, e);
    }
    if (lock == null) {
      closeQuietly(raf);
      throw new StoreLockedException("the intent store " + database + " is already open in this"
          + " or another process; share one store instance", null);
    }
    return new StoreOwnerLock(raf, lock);
  }

  /** Releases the lock. Idempotent. */
  public void release() {
    try {
      if (lock.isValid()) {
        lock.release();
      }
    } catch (IOException ignored) {
      // Closing the file below releases the lock as well.
    }
    closeQuietly(file);
  }

  private static void closeQuietly(RandomAccessFile raf) {
    try {
      raf.close();
    } catch (IOException ignored) {
      // Nothing is left to release.
    }
  }
}
