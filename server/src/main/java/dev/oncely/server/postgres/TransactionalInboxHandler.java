package dev.oncely.server.postgres;

import dev.oncely.server.inbox.InboxMessage;
import java.sql.Connection;

/**
 * Handles one inbox message through a connection in an open transaction, which {@link
 * PostgresInbox} commits together with the message's completion. Its effects are the rows it
 * writes through {@code connection}, and the app's outbound intents created there ({@link
 * dev.oncely.postgres.PostgresIntentStore#createInTransaction}, keyed by {@link
 * InboxMessage#outboundKey}); anything it does elsewhere (an HTTP call, another database) is not
 * in the transaction and is at least once, as for any {@link dev.oncely.server.inbox.InboxHandler}.
 */
@FunctionalInterface
public interface TransactionalInboxHandler {
  /**
   * Writes {@code message}'s effects through {@code connection}. Do not commit, roll back, close
   * the connection or turn auto-commit on: the inbox ends the transaction.
   *
   * @throws Exception when the message could not be handled this time: the transaction is rolled
   *     back and the inbox counts a failure
   */
  void handle(InboxMessage message, Connection connection) throws Exception;
}
