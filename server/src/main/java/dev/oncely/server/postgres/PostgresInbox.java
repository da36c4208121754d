package dev.oncely.server.postgres;

import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.server.inbox.CompletingHandler;
import dev.oncely.server.inbox.InboxCompletion;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.internal.InboxRecords;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Inbox handlers whose effects commit exactly once: the handler's rows and the message's completion
 * ({@code PROCESSING -> HANDLED}, a compare-and-set on the message's revision through {@link
 * PostgresIntentStore#compareAndSetInTransaction}) are written in one PostgreSQL transaction,
 * which commits both or neither. Needs the inbox's messages in a {@link PostgresIntentStore} of the
 * same database as the effects (in a schema of its own: {@link
 * PostgresIntentStore.Builder#schema(String)}).
 *
 * <ul>
 *   <li>An instance that dies before the commit leaves neither: the message's lease runs out and
 *       another run takes it over and runs the handler again (the dead run counts a failure).
 *   <li>One that dies after it leaves both: the message is handled and never run again.
 *   <li>A frozen instance whose lease was taken over finds the revision changed when it completes:
 *       its transaction rolls back, effects included, and the other run's end stands.
 *   <li>A handler that throws rolls back; the inbox counts a failure and runs it again after a
 *       backoff, or dead-letters it.
 * </ul>
 *
 * <pre>{@code
 * PostgresIntentStore messages = PostgresIntentStore.builder(dataSource).schema("oncely_inbox")
 *     .migrate(true).build();
 * Inbox inbox = Inbox.builder(messages)
 *     .handler("stripe", PostgresInbox.handler(dataSource, messages, (message, connection) -> {
 *       try (PreparedStatement st = connection.prepareStatement(
 *           "INSERT INTO payments_received (event_id, body) VALUES (?, ?)")) {
 *         st.setString(1, message.messageId());
 *         st.setBytes(2, message.payload());
 *         st.executeUpdate();
 *       }
 *     }))
 *     .build();
 * }</pre>
 *
 * <p>Exactly once covers what the handler writes through its connection. A call it makes to
 * anything else (a provider, another database) is at least once, as from any {@link
 * dev.oncely.server.inbox.InboxHandler}: make it an Oncely intent in the same transaction ({@link
 * PostgresIntentStore#createInTransaction}, keyed by {@link InboxMessage#outboundKey}).
 *
 * <p>The transaction is open for the whole run, as any transaction around a handler's writes is:
 * keep runs short. The message's row is locked only from the completion's write to the commit,
 * which follows at once; the inbox holds off renewing the run's lease meanwhile, so the revision
 * the completion expects cannot move. Under {@code REPEATABLE READ} or {@code SERIALIZABLE} a
 * concurrent takeover aborts the transaction ({@code 40001}, a failed run) instead of fencing it
 * out; either way nothing commits twice.
 */
public final class PostgresInbox {
  private static final System.Logger LOG = System.getLogger(PostgresInbox.class.getName());

  private PostgresInbox() {}

  /**
   * A handler for {@link dev.oncely.server.inbox.Inbox.Builder#handler} or {@link
   * dev.oncely.server.inbox.Inbox#once} that runs {@code handler} in a transaction on a
   * connection of {@code dataSource} and commits its effects with the message's completion.
   *
   * @param dataSource the database of the effects and of {@code store}
   * @param store the store the inbox is on
   * @param handler writes the effects
   * @throws NullPointerException if an argument is null
   */
  public static CompletingHandler handler(DataSource dataSource, PostgresIntentStore store,
      TransactionalInboxHandler handler) {
    return new TransactionalRun(Objects.requireNonNull(dataSource, "dataSource"),
        Objects.requireNonNull(store, "store"), Objects.requireNonNull(handler, "handler"));
  }

  /** One transaction per run: the effects, then the completion, then the commit. */
  private record TransactionalRun(DataSource dataSource, PostgresIntentStore store,
      TransactionalInboxHandler handler) implements CompletingHandler {
    @Override
    public void handle(InboxMessage message, InboxCompletion completion) throws Exception {
      try (Connection c = dataSource.getConnection()) {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        boolean ended = false;
        try {
          handler.handle(message, c);
          if (c.getAutoCommit()) {
            throw new IllegalStateException("the handler of " + message + " turned auto-commit"
                + " on: its effects may have committed apart from the message's completion");
          }
          completion.complete((expected, done) -> writeAndCommit(c, expected, done));
          ended = true;
          releaseQuietly(message);
        } finally {
          // Turning auto-commit back on commits an open transaction: only once it has ended.
          if (ended || rolledBack(c, message)) {
            restoreQuietly(c, autoCommit);
          }
        }
      }
    }

    private boolean writeAndCommit(Connection c, InboxMessage expected, InboxMessage handled)
        throws SQLException {
      if (store.compareAndSetInTransaction(c, InboxRecords.toRecord(expected),
          InboxRecords.toRecord(handled))) {
        c.commit();
        return true;
      }
      c.rollback();
      if (store.get(expected.id()).isEmpty()) {
        throw new IllegalArgumentException("the message " + expected + " is not in " + store
            + ": pass the store the inbox is on");
      }
      return false;
    }

    /**
     * Ends the store's own row lease on the message (only this owner's), now that the run ended:
     * one that {@code once} or a lease renewal took would otherwise stay in the store's renewal
     * set, since a write in the caller's transaction leaves it as it is (the caller might still
     * roll back).
     */
    private void releaseQuietly(InboxMessage message) {
      try {
        store.release(message.id());
      } catch (RuntimeException e) {
        LOG.log(Level.DEBUG, "releasing the store's lease on " + message + " failed; it ends"
            + " when it expires: " + e.getMessage());
      }
    }

    /** Rolls the failed run back; false if that failed (the connection's end then does it). */
    private static boolean rolledBack(Connection c, InboxMessage message) {
      try {
        c.rollback();
        return true;
      } catch (SQLException e) {
        LOG.log(Level.WARNING, "rolling back the run of " + message + " failed (SQLState "
            + e.getSQLState() + "); the connection's end rolls it back");
        return false;
      }
    }

    /** Gives the connection back as it was lent; a broken one is the pool's to drop. */
    private static void restoreQuietly(Connection c, boolean autoCommit) {
      try {
        c.setAutoCommit(autoCommit);
      } catch (SQLException e) {
        LOG.log(Level.DEBUG, "restoring auto-commit failed (SQLState " + e.getSQLState() + ")");
      }
    }

    @Override
    public String toString() {
      return "PostgresInbox.handler(" + store + ")";
    }
  }
}
