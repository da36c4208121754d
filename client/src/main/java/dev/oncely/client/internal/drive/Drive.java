package dev.oncely.client.internal.drive;

import dev.oncely.client.IntentId;
import java.util.concurrent.CompletableFuture;

/**
 * One running drive of one intent, as the {@link DriveRegistry} holds it: its owner, the future
 * every caller waiting on the intent follows, the wake-up of its current wait, and its stop.
 * Thread-safe.
 */
public final class Drive {
  private final DriveRegistry registry;
  private final Object key;
  private final IntentId id;
  private final DriveOwner owner;
  private final String fingerprint;
  private final CompletableFuture<DriveEnd> ended = new CompletableFuture<>();
  private final CompletableFuture<Void> yielded = new CompletableFuture<>();
  private CompletableFuture<Boolean> wake;
  private String stop;
  private volatile boolean ending;

  Drive(DriveRegistry registry, Object key, IntentId id, DriveOwner owner, String fingerprint) {
    this.registry = registry;
    this.key = key;
    this.id = id;
    this.owner = owner;
    this.fingerprint = fingerprint;
  }

  /** The intent driven. */
  public IntentId id() {
    return id;
  }

  /** The owner whose close stops this drive. */
  public DriveOwner owner() {
    return owner;
  }

  /** The payload fingerprint the drive was admitted with, or null (a resume: the record says). */
  public String fingerprint() {
    return fingerprint;
  }

  /** Completed with how the drive ended; never completed exceptionally but by an {@code Error}. */
  public CompletableFuture<DriveEnd> ended() {
    return ended;
  }

  /**
   * Completed when the drive first waits (backoff, {@code Retry-After}, a poll interval, the
   * network gate: it gives its thread back to a timer) or ends, whichever comes first: from then on
   * it holds no driver thread until its wait is over. A resume of a backlog lets the next drive
   * start then.
   */
  public CompletableFuture<Void> yielded() {
    return yielded;
  }

  /**
   * Whether the drive has begun its last write (it parks, settles or hands the record to
   * reconciliation) and will make no further attempt. Set before that write, so whoever has seen
   * the record's new state, or the event that follows it, sees this true: a caller asking for the
   * intent from then on must not join this drive (it would only get the outcome that made it stop)
   * but wait for {@link #ended()} and drive what it left.
   */
  public boolean isEnding() {
    return ending;
  }

  /** Marks the drive as ending: its last write is about to be made. */
  void markEnding() {
    ending = true;
  }

  /** Why the drive must stop, or null. */
  public synchronized String stopRequested() {
    return stop;
  }

  /**
   * A new wake-up for the wait about to start: completed {@code true} when the wait is over,
   * {@code false} when the drive must stop instead (at once if it already must).
   */
  CompletableFuture<Boolean> arm() {
    CompletableFuture<Boolean> armed;
    synchronized (this) {
      wake = new CompletableFuture<>();
      if (stop != null) {
        wake.complete(false);
      }
      armed = wake;
    }
    yielded.complete(null);
    return armed;
  }

  /** Stops the drive: a current wait ends at once, later steps see {@link #stopRequested()}. */
  void stop(String why) {
    CompletableFuture<Boolean> current;
    synchronized (this) {
      if (stop == null) {
        stop = why;
      }
      current = wake;
    }
    if (current != null) {
      current.complete(false);
    }
  }

  /** Ends the drive with {@code end}: it leaves the registry first, so a waiting caller may enter. */
  public void finish(DriveEnd end) {
    leave();
    ended.complete(end);
    yielded.complete(null);
  }

  /** Ends the drive with an error nothing expected. */
  public void fail(Throwable error) {
    leave();
    ended.completeExceptionally(error);
    yielded.complete(null);
  }

  private void leave() {
    if (registry != null) {
      registry.leave(key, this);
    }
    owner.release(this);
  }
}
