package dev.oncely.client.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What owns drives: an {@code IdempotentClient} or an {@code IdempotencyInterceptor}. It knows its
 * running drives and the calls they have on the wire, so {@link #close} can stop them: a waiting
 * drive stops at once, a drive on the wire has its call canceled and stops at its next step, and
 * no drive starts an attempt once the owner is closed. Thread-safe.
 */
public final class DriveOwner {
  private final String name;
  private final CallRegistry calls = new CallRegistry();
  private final Set<Drive> drives = new HashSet<>();
  private boolean closed;

  /** An owner that names itself {@code name} in stop reasons ("the client", "the interceptor"). */
  public DriveOwner(String name) {
    this.name = name;
  }

  /** The calls this owner's drives have on the wire. */
  public CallRegistry calls() {
    return calls;
  }

  /** Null while the owner is open; else why its drives must stop. */
  public String stopped() {
    synchronized (this) {
      return closed ? name + " was closed" : null;
    }
  }

  /** Takes {@code drive} on; false if the owner is closed (the drive must not start). */
  synchronized boolean adopt(Drive drive) {
    if (closed) {
      return false;
    }
    drives.add(drive);
    return true;
  }

  /** Forgets a drive that ended. */
  synchronized void release(Drive drive) {
    drives.remove(drive);
    notifyAll();
  }

  /**
   * Closes the owner: no drive starts or sends again, calls on the wire are canceled, waiting
   * drives stop at once ({@code PENDING}, interrupted, resumable), and this returns when every
   * drive has ended or {@code grace} passed. Idempotent.
   *
   * @return the drives still running after {@code grace} (they send nothing more)
   */
  public List<Drive> close(Duration grace) {
    List<Drive> running;
    synchronized (this) {
      closed = true;
      running = new ArrayList<>(drives);
    }
    calls.closeAll();
    String why = name + " was closed";
    for (Drive drive : running) {
      drive.stop(why);
    }
    long end = System.nanoTime() + grace.toNanos();
    synchronized (this) {
      try {
        while (!drives.isEmpty()) {
          long left = end - System.nanoTime();
          if (left <= 0) {
            break;
          }
          wait(Math.max(1, left / 1_000_000));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new ArrayList<>(drives);
    }
  }
}
