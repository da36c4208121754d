package dev.oncely.server.inbox;

/**
 * An {@link InboxHandler} that writes its message's completion itself, in the transaction that
 * holds its effects, so the effects and the message's {@link InboxState#HANDLED} commit together
 * or not at all: a run that dies before its commit leaves neither (the message is run again), one
 * that dies after it leaves both (the message is never run again). {@code
 * dev.oncely.server.postgres.PostgresInbox} builds one on PostgreSQL; another transactional store
 * of the same database can do the same.
 *
 * <p>The inbox calls {@link #handle(InboxMessage, InboxCompletion)} instead of {@link
 * #handle(InboxMessage)} and writes no completion of its own when the handler ended its run
 * through {@link InboxCompletion#complete}. The handler must call it once, after its effects and
 * in their transaction:
 *
 * <ul>
 *   <li>it wrote the message handled (true): the handler commits, done;
 *   <li>this run was fenced out (false, another run took the message over after this one's lease
 *       ran out): the handler rolls back everything, and the other run's end stands;
 *   <li>the handler throws before it, or the completion's writer throws (a failed commit): the
 *       transaction rolls back and the inbox counts a failure, as for any handler;
 *   <li>the handler returns without it: counted as a failure too, since the inbox cannot know
 *       whether the effects committed, and a message is never marked handled apart from them.
 * </ul>
 */
public interface CompletingHandler extends InboxHandler {
  /**
   * Handles {@code message} and ends the run through {@code completion}, in one transaction.
   *
   * @throws Exception when the message could not be handled this time; the transaction must have
   *     rolled back
   */
  void handle(InboxMessage message, InboxCompletion completion) throws Exception;

  /**
   * Not used: the inbox runs a completing handler with its completion.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  default void handle(InboxMessage message) {
    throw new UnsupportedOperationException("a CompletingHandler is run with its InboxCompletion;"
        + " give it to an Inbox (Builder.handler or once) instead of calling it");
  }
}
