package dev.oncely.server.inbox;

/**
 * Where one inbox message stands:
 * {@code QUEUED -> PROCESSING -> {HANDLED | QUEUED (a failure, retried after a backoff) | DEAD}},
 * and {@code DEAD -> QUEUED} when an operator replays it.
 */
public enum InboxState {
  /** Stored and waiting for a worker: new, or failed before and due again after its backoff. */
  QUEUED,
  /** A worker or a {@code once} caller holds it under a lease and its handler runs. */
  PROCESSING,
  /** Its handler finished. Terminal: a duplicate is acknowledged and never run. */
  HANDLED,
  /**
   * Its handler failed as often as the inbox allows: never run again by itself, kept (never
   * purged) until an operator replays it.
   */
  DEAD
}
