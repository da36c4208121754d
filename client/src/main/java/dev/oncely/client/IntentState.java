package dev.oncely.client;

/**
 * Where one business intent stands. The state machine is
 * {@code NEW -> IN_FLIGHT -> {COMPLETED | REJECTED | PENDING | KEY_CONFLICT | NEEDS_RECONCILIATION}}
 * and {@code PENDING -> IN_FLIGHT} when a poll or a resume drives the intent again.
 *
 * <p>Only {@link #COMPLETED}, {@link #REJECTED} and {@link #KEY_CONFLICT} are terminal: every other
 * state is "unfinished" and is returned by {@code IntentStore.listUnfinished()} after a restart.
 */
public enum IntentState {
  /** Persisted, not yet sent. The key and the exact body bytes are durable. */
  NEW,
  /** A driver owns the intent and an attempt may be on the wire: the outcome is not known. */
  IN_FLIGHT,
  /** The outcome is uncertain or still processing on the server (timeout after send, 202, deadline). */
  PENDING,
  /** The server produced the effect; the response is kept. Terminal. */
  COMPLETED,
  /** The server refused the intent with a business 4xx; the response is kept. Terminal. */
  REJECTED,
  /** The server saw this key with another payload. Terminal; never retried with a new key. */
  KEY_CONFLICT,
  /**
   * The intent cannot be resent safely (older than the server's key retention, or a replayed
   * server error): a reconciler must find out what happened.
   */
  NEEDS_RECONCILIATION;

  /** Whether no further attempt will ever be made for an intent in this state. */
  public boolean isTerminal() {
    return this == COMPLETED || this == REJECTED || this == KEY_CONFLICT;
  }
}
