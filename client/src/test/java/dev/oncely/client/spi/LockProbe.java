package dev.oncely.client.spi;

import java.io.RandomAccessFile;
import java.nio.channels.FileLock;

/** Run in a child JVM: prints HELD if another process holds the lock on the file, else FREE. */
public final class LockProbe {
  private LockProbe() {}

  /** {@code args[0]}: the lock file. */
  public static void main(String[] args) throws Exception {
    try (RandomAccessFile raf = new RandomAccessFile(args[0], "rw")) {
      FileLock lock = raf.getChannel().tryLock();
      System.out.println(lock == null ? "HELD" : "FREE");
    }
  }
}
