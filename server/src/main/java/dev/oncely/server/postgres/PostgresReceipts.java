package dev.oncely.server.postgres;

import dev.oncely.client.StoreException;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.server.HandlerContext;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptFencedException;
import dev.oncely.server.internal.ReceiptRecords;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Writes a receipt's recovery point ("effects committed" and a reference to what they created) in
 * the handler's own PostgreSQL transaction, beside its business rows, when the receipts live in a
 * {@link PostgresIntentStore} of the same database: the business rows and the recovery point
 * commit together or not at all. A crash before the commit leaves neither, and a repeat runs the
 * handler again; a crash after it leaves both, and a repeat completes the request from the
 * recovery point through the app's {@link dev.oncely.server.ReceiptRecovery} (or answers {@code
 * 202} until it can), never running the effects again. Outbound provider calls made while handling
 * belong in the same transaction as the app's own intents ({@link
 * PostgresIntentStore#createInTransaction}, keyed by {@link HandlerContext#outboundKey}); keep the
 * receipts in a schema of their own ({@link PostgresIntentStore.Builder#schema(String)}), since a
 * client's scheduler drives every due row of its table.
 *
 * <pre>{@code
 * try (Connection c = dataSource.getConnection()) {
 *   c.setAutoCommit(false);
 *   String orderId = insertOrder(c, order);                       // the business writes
 *   try (RecoveryPoint point = PostgresReceipts.effectsCommittedIn(c, receiptStore, context,
 *       orderId)) {
 *     c.commit();
 *     point.committed();                                          // only after the commit
 *   }                                                             // otherwise: rolled back
 * }
 * }</pre>
 *
 * <p>Plain JDBC has no hook for the end of a transaction, so the app says how it ended on the
 * returned {@link RecoveryPoint}, after the commit or rollback. Until then the core holds its
 * lease renewals of the receipt (the transaction holds its row): keep the transaction short.
 */
public final class PostgresReceipts {
  private PostgresReceipts() {}

  /**
   * Writes the recovery point of the request {@code context} runs, with {@code reference}, into
   * {@code connection}'s open transaction: the receipt's next revision, through {@link
   * PostgresIntentStore#compareAndSetInTransaction}. Nothing is committed; commit, then call {@link
   * RecoveryPoint#committed()}, or roll back, then {@link RecoveryPoint#rolledBack()} (closing the
   * point without {@code committed()} says rolled back). An unprotected request (no key, on an
   * endpoint that does not require one) has no receipt: nothing is written and the point's methods
   * do nothing.
   *
   * @param connection the handler's connection, in a transaction ({@code autoCommit} off)
   * @param store the store the endpoints' {@link dev.oncely.server.ReceiptStore} is on
   * @param context the handler's context
   * @param reference what the effects created (an order id), for the recovery to render from
   * @return the point, to be told how the transaction ended
   * @throws ReceiptFencedException if this run no longer owns the receipt (its lease ran out and
   *     another run took it over): nothing was written, and the business writes must be rolled
   *     back; let it propagate
   * @throws IllegalArgumentException if {@code connection} is in auto-commit mode, or the receipt
   *     is not in {@code store} (another store was passed)
   * @throws IllegalStateException if another change of the receipt is open
   * @throws StoreException if the statement fails; the transaction is then aborted
   */
  public static RecoveryPoint effectsCommittedIn(Connection connection, PostgresIntentStore store,
      HandlerContext context, String reference) {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(reference, "reference");
    if (!context.isProtected()) {
      return RecoveryPoint.NONE;
    }
    checkInTransaction(connection);
    Receipt next = context.beginTransactionalChange(reference);
    // While the change is open the context's receipt stays the one it replaces.
    Receipt expected = context.receipt();
    boolean written;
    try {
      written = store.compareAndSetInTransaction(connection, ReceiptRecords.toRecord(expected),
          ReceiptRecords.toRecord(next));
    } catch (RuntimeException e) {
      context.transactionalChangeEnded(null);
      throw e;
    }
    if (!written) {
      context.transactionalChangeEnded(null);
      if (store.get(expected.id()).isEmpty()) {
        throw new IllegalArgumentException("the receipt of " + expected.id().operation() + " "
            + expected.id().safeKey() + " is not in " + store + ": pass the store the endpoints'"
            + " ReceiptStore is on");
      }
      throw new ReceiptFencedException(expected.id());
    }
    return new RecoveryPoint(context, next);
  }

  private static void checkInTransaction(Connection connection) {
    boolean autoCommit;
    try {
      autoCommit = connection.getAutoCommit();
    } catch (SQLException e) {
      throw new StoreException("reading the connection's auto-commit mode failed (SQLState "
          + e.getSQLState() + ")", e);
    }
    if (autoCommit) {
      throw new IllegalArgumentException("the connection is in auto-commit mode: the recovery"
          + " point would commit apart from the business writes; call setAutoCommit(false) first");
    }
  }
}
