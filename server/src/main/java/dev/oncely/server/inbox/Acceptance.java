package dev.oncely.server.inbox;

/**
 * What {@link Inbox#accept} did with one verified delivery. Both values mean the message is durable
 * and the sender gets its {@code 2xx}.
 */
public enum Acceptance {
  /** The message was new and is now stored, queued for a worker. */
  ACCEPTED,
  /** The message was stored before (handled, running, queued or dead): nothing was written. */
  DUPLICATE
}
