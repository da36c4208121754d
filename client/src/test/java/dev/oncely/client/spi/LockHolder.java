package dev.oncely.client.spi;

import java.io.RandomAccessFile;

/**
 * Run in a child JVM: locks the file, prints L, and holds the lock until its stdin closes or it is
 * killed.
 */
public final class LockHolder {
  private LockHolder() {}

  /** {@code args[0]}: the lock file. */
  public static void main(String[] args) throws Exception {
    try (RandomAccessFile raf = new RandomAccessFile(args[0], "rw")) {
      raf.getChannel().lock();
      System.out.print('L');
      System.out.flush();
      while (System.in.read() >= 0) {
        continue;
      }
    }
  }
}
