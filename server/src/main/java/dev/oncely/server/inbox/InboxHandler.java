package dev.oncely.server.inbox;

/**
 * Handles one message of a source. Runs on an inbox worker (or the caller of {@link
 * Inbox#once}), after the sender was answered, under a lease that the inbox renews while it runs.
 *
 * <p>A handler is run at least once per message, and again only when an earlier run failed, its
 * instance died, or it ran past its lease on a frozen instance: make its effects idempotent on the
 * message (a unique constraint on the message id, or outbound calls made as Oncely intents under
 * {@link InboxMessage#outboundKey}). A handler whose effects commit in the same PostgreSQL
 * transaction as the message's completion ({@code dev.oncely.server.postgres.PostgresInbox}, a
 * {@link CompletingHandler}) runs to completion exactly once.
 */
@FunctionalInterface
public interface InboxHandler {
  /**
   * Handles {@code message}. Returning normally marks it {@link InboxState#HANDLED}; throwing
   * counts a failure (retried after a backoff, dead-lettered after the inbox's limit).
   *
   * @throws Exception when the message could not be handled this time
   */
  void handle(InboxMessage message) throws Exception;
}
