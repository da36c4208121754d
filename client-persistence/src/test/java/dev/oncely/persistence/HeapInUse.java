package dev.oncely.persistence;

import java.lang.management.ManagementFactory;

/** The heap a measurement reads: in use after full collections, for the opt-in measurements. */
final class HeapInUse {
  private HeapInUse() {}

  /**
   * The least heap in use over four explicit collections. {@code System.gc()} returns once its
   * collection is done (the JDK's collectors run an explicit GC to completion unless told to run
   * it concurrently), so nothing waits for it by time.
   */
  static long afterGc() {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
