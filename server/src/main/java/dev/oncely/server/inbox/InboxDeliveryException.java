package dev.oncely.server.inbox;

/**
 * Thrown by {@link Inbox#once} when the delivery must not be acknowledged: the handler failed (the
 * failure is counted, and the message is kept for the next delivery or the inbox's workers), or
 * another caller holds the message right now. Let the queue redeliver it.
 */
public final class InboxDeliveryException extends Exception {
  private static final long serialVersionUID = 1L;
  private final boolean busy;

  InboxDeliveryException(String message, boolean busy, Throwable cause) {
    super(message, cause);
    this.busy = busy;
  }

  /**
   * Whether the message was held by another caller or worker (its handler may be running); false
   * when this call ran the handler and it failed ({@link #getCause()} is what it threw).
   */
  public boolean busy() {
    return busy;
  }
}
