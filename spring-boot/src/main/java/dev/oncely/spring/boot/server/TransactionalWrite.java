package dev.oncely.spring.boot.server;

import dev.oncely.server.HandlerContext;

/**
 * Writes a recovery point inside the current Spring transaction, beside the business writes, when
 * the receipts live where that transaction writes: {@link TransactionalRecoveryPoint} asks it
 * first and falls back to recording after the commit.
 */
interface TransactionalWrite {
  /**
   * Writes {@code context}'s recovery point with {@code reference} in the current transaction and
   * arranges for the core to be told how the transaction ended.
   *
   * @return false, having done nothing, when the current transaction does not write where the
   *     receipts are
   */
  boolean writeInTransaction(HandlerContext context, String reference);
}
