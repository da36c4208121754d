package dev.oncely.client.internal.drive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What owns drives: an {@code IdempotentClient} or an {@code IdempotencyInterceptor}. It knows its
 * running drives and the calls they have on the wire, so {@link #close} can stop them: a waiting
 * drive stops at once, a drive on the wire has its call canceled and stops at its next step, and
 * no drive starts an attempt once the owner is closed. Thread-safe; taking and releasing a drive
 * takes no lock, so callers at high concurrency do not queue on the owner.
 */
public final class DriveOwner {
  private final String name;
  private final String stopReason;
  private final CallRegistry calls = new CallRegistry();
  private final Set<Drive> drives = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /** An owner that names itself {@code name} in stop reasons ("the client", "the interceptor"). */
  public DriveOwner(String name) {
    this.name = name;
    this.stopReason = name + " was closed";
  }

  /** How the owner names itself ("the client", "the interceptor"). */
  public String name() {
    return name;
  }

  /** The calls this owner's drives have on the wire. */
  public CallRegistry calls() {
    return calls;
  }

  /** Null while the owner is open; else why its drives must stop. */
  public String stopped() {
    return closed ? stopReason : null;
  }

  /** Takes {@code drive} on; false if the owner is closed (the drive must not start). */
  boolean adopt(Drive drive) {
    drives.add(drive);
    // Added before the flag is read: a close that set the flag earlier is seen here, and a close
    // that sets it later finds the drive in its snapshot.
    if (closed) {
      drives.remove(drive);
      return false;
    }
    return true;
  }

  /** Forgets a drive that ended. */
  void release(Drive drive) {
    drives.remove(drive);
    if (closed) {
      synchronized (this) {
        notifyAll();
      }
    }
  }

  /**
   * Closes the owner: no drive starts or sends again, calls on the wire are canceled, waiting
   * drives stop at once ({@code PENDING}, interrupted, resumable), and this returns when every
   * drive has ended or {@code grace} passed. Idempotent.
   *
   * @return the drives still running after {@code grace} (they send nothing more)
   */
  public List<Drive> close(Duration grace) {
    closed = true;
    calls.closeAll();
    for (Drive drive : new ArrayList<>(drives)) {
      drive.stop(stopReason);
    }
    long end = System.nanoTime() + grace.toNanos();
    synchronized (this) {
      try {
        while (!drives.isEmpty()) {
          long left = end - System.nanoTime();
          if (left <= 0) {
            break;
          }
          // Woken by release() of each drive that ends; the grace's end is the only timeout.
          wait(Math.max(1, left / 1_000_000));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return new ArrayList<>(drives);
  }
}
