package dev.oncely.server.inbox;

import java.util.Objects;

/**
 * Something the inbox did with one message, for metrics and logs. Carries the source and the
 * message id's safe hash ({@link dev.oncely.client.IntentId#safeKey()}), never the id or payload.
 *
 * @param kind what happened
 * @param source the message's source
 * @param safeKey a short one-way hash of the message id
 */
public record InboxEvent(Kind kind, String source, String safeKey) {
  /** Checks the components. */
  public InboxEvent {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(safeKey, "safeKey");
  }

  /** What happened. */
  public enum Kind {
    /** A new message was stored. */
    ACCEPTED,
    /** A delivery of a message stored before was acknowledged without a second run. */
    DUPLICATE,
    /** A duplicate carried other bytes than the stored message (the stored one is kept). */
    MISMATCH,
    /** A handler run started. */
    STARTED,
    /** A handler run finished and the message is handled. */
    HANDLED,
    /** A handler run failed; the message is queued again after a backoff. */
    FAILED,
    /** A message was taken over from a run whose lease ran out (its instance died or froze). */
    TAKEN_OVER,
    /** A message failed as often as allowed and went to the dead-letter list. */
    DEAD_LETTERED,
    /** An operator queued a dead message again. */
    REPLAYED,
    /** A run lost its message to a takeover while its handler ran (a frozen instance). */
    FENCED_OUT,
    /** A worker found no handler for the message's source and left it queued for later. */
    NO_HANDLER
  }
}
