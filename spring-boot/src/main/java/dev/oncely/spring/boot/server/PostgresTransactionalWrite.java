package dev.oncely.spring.boot.server;

import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.server.HandlerContext;
import dev.oncely.server.postgres.PostgresReceipts;
import dev.oncely.server.postgres.RecoveryPoint;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The recovery point in the app's own transaction when the receipts are a {@link
 * PostgresIntentStore} on the DataSource that transaction holds a connection of: {@link
 * PostgresReceipts#effectsCommittedIn} on that connection, and the {@link RecoveryPoint} told how
 * the transaction ended by a transaction synchronization (an unknown outcome counts as rolled
 * back, as {@link RecoveryPoint} asks). The business rows and the recovery point then commit
 * together or not at all.
 */
final class PostgresTransactionalWrite implements TransactionalWrite {
  private final PostgresIntentStore store;
  private final DataSource dataSource;

  PostgresTransactionalWrite(PostgresIntentStore store, DataSource dataSource) {
    this.store = store;
    this.dataSource = dataSource;
  }

  @Override
  public boolean writeInTransaction(HandlerContext context, String reference) {
    if (!TransactionSynchronizationManager.isActualTransactionActive()
        || !TransactionSynchronizationManager.isSynchronizationActive()
        || TransactionSynchronizationManager.getResource(dataSource) == null) {
      return false; // no transaction, or one on another database (JPA elsewhere, say)
    }
    Connection connection = DataSourceUtils.getConnection(dataSource);
    try {
      RecoveryPoint point = PostgresReceipts.effectsCommittedIn(connection, store, context,
          reference);
      TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
        @Override
        public void afterCompletion(int status) {
          if (status == STATUS_COMMITTED) {
            point.committed();
          } else {
            point.rolledBack();
          }
        }
      });
      return true;
    } finally {
      // The transaction's own connection: releasing only lowers its reference count.
      DataSourceUtils.releaseConnection(connection, dataSource);
    }
  }
}
