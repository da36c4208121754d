package dev.oncely.server.inbox;

import org.jspecify.annotations.Nullable;

/**
 * The end of one run of a {@link CompletingHandler}: writes the message's completion through the
 * handler's own transaction, while the inbox holds off the renewal of the run's lease (a renewal
 * in between would change the revision the completion is compared on). For the run's thread; the
 * first call counts.
 */
public final class InboxCompletion {
  /**
   * Writes a run's completion in the handler's transaction: the store's compare-and-set of {@code
   * expected} (the message as the run holds it now; its revision is the run's fencing token) by
   * {@code handled} (its handled successor, to be written as given), then the commit of that
   * write and the run's effects together.
   */
  @FunctionalInterface
  public interface Writer {
    /**
     * Writes {@code handled} in place of {@code expected} and commits it with the effects.
     *
     * @return true if both committed; false if the compare-and-set was refused (another run took
     *     the message over) and the transaction was rolled back
     * @throws Exception if the write or the commit failed: roll back (or leave the outcome to the
     *     revision, when the commit's outcome is unknown)
     */
    boolean write(InboxMessage expected, InboxMessage handled) throws Exception;
  }

  private final Inbox inbox;
  private final Held held;
  private boolean ended;
  private @Nullable Exception writeFailure;

  InboxCompletion(Inbox inbox, Held held) {
    this.inbox = inbox;
    this.held = held;
  }

  /**
   * Writes the run's completion through {@code writer}. When this run was fenced out already (a
   * renewal found the message taken over) the writer is not called.
   *
   * @return true if the message is handled, its effects committed; false if this run was fenced
   *     out: nothing of it may commit, and another run's end stands
   * @throws IllegalStateException if the run's completion was written already
   * @throws Exception what {@code writer} threw; the inbox then counts the run as failed (when the
   *     commit did land regardless, its next write is refused on the revision, and the message
   *     stays handled)
   */
  public synchronized boolean complete(Writer writer) throws Exception {
    if (ended || writeFailure != null) {
      throw new IllegalStateException("the completion of " + held.current()
          + " was written already");
    }
    try {
      boolean handled = inbox.completeThrough(held, writer);
      ended = true;
      return handled;
    } catch (Exception e) {
      writeFailure = e;
      throw e;
    }
  }

  /** Whether the run ended through {@link #complete} (handled, or fenced out). */
  synchronized boolean ended() {
    return ended;
  }

  /** Why the run did not end through {@link #complete}: the writer's failure, or no call. */
  synchronized Exception notEnded() {
    return writeFailure != null ? writeFailure : new IllegalStateException("the completing"
        + " handler returned without writing its completion; the run counts as failed");
  }
}
