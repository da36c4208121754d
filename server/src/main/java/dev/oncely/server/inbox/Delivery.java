package dev.oncely.server.inbox;

/**
 * What {@link Inbox#once} did with one delivery. Every value means the message is safe to
 * acknowledge to the queue; a delivery that is not safe to acknowledge throws {@link
 * InboxDeliveryException} instead.
 */
public enum Delivery {
  /** The handler ran in this call and finished. */
  HANDLED,
  /** The message was handled before (a redelivery): the handler did not run. */
  ALREADY_HANDLED,
  /**
   * The message failed as often as the inbox allows and is kept in the dead-letter list for an
   * operator: the handler did not run again.
   */
  DEAD_LETTERED
}
