package dev.oncely.server.inbox;

/**
 * One message this instance holds under its lease: the latest revision it wrote, when it wrote it
 * on the monotonic clock (for renewal), and whether a takeover fenced it out. Guarded by itself:
 * the renewal sweep and the run's end never write the same message at once.
 */
final class Held {
  private InboxMessage current;
  private long lastWriteNanos;
  private boolean fencedOut;

  Held(InboxMessage current, long nowNanos) {
    this.current = current;
    this.lastWriteNanos = nowNanos;
  }

  synchronized InboxMessage current() {
    return current;
  }

  synchronized boolean fencedOut() {
    return fencedOut;
  }

  /** Records a write this instance made; guarded by the caller holding this object's lock. */
  void wrote(InboxMessage next, long nowNanos) {
    current = next;
    lastWriteNanos = nowNanos;
  }

  void fence() {
    fencedOut = true;
  }

  long lastWriteNanos() {
    return lastWriteNanos;
  }
}
