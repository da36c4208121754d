package dev.oncely.persistence.internal.sqlite;

import dev.oncely.client.StoreException;
import dev.oncely.persistence.internal.CommitCrashHook;
import dev.oncely.persistence.internal.GroupCommitter;
import dev.oncely.persistence.internal.ReadCache;
import java.sql.SQLException;

/**
 * Runs group commits on the writer connection: {@code BEGIN IMMEDIATE}, the batch's statements,
 * then {@code COMMIT} with {@code synchronous=FULL} (the WAL is fsynced before COMMIT returns).
 * The read cache learns about the batch only after COMMIT returned, still in the leading caller,
 * so no caller is acknowledged before both. {@link CommitCrashHook} points sit on either side of
 * COMMIT. The three statements are prepared once on the writer, not per batch.
 */
public final class SqliteTransactions implements GroupCommitter.Transactions<SqliteTransaction> {
  private final SqliteStatements writer;
  private final String path;
  private final ReadCache cache;

  /** Commits through {@code writer}; {@code path} names the store in errors. */
  public SqliteTransactions(SqliteStatements writer, String path, ReadCache cache) {
    this.writer = writer;
    this.path = path;
    this.cache = cache;
  }

  @Override
  public SqliteTransaction begin() {
    try {
      writer.prepare("BEGIN IMMEDIATE").execute();
    } catch (SQLException e) {
      throw SqliteErrors.translate(e, path, "starting a transaction");
    }
    return new SqliteTransaction(writer.connection());
  }

  @Override
  public void commit(SqliteTransaction transaction) {
    if (transaction.failure() != null) {
      throw new StoreException(path + ": a write of this group commit failed inside SQLite;"
          + " the whole batch is rolled back", transaction.failure());
    }
    CommitCrashHook.beforeCommit();
    try {
      writer.prepare("COMMIT").execute();
    } catch (SQLException e) {
      throw SqliteErrors.translate(e, path, "committing");
    }
    CommitCrashHook.afterCommit();
    if (transaction.deleted()) {
      cache.invalidateAll();
    }
    cache.committed(transaction.storedRecords());
  }

  @Override
  public void rollback(SqliteTransaction transaction) {
    cache.invalidateAll();
    try {
      writer.prepare("ROLLBACK").execute();
    } catch (SQLException e) {
      // SQLite rolls back by itself after some I/O errors; then there is nothing left to undo.
      if (!String.valueOf(e.getMessage()).contains("no transaction is active")) {
        throw SqliteErrors.translate(e, path, "rolling back");
      }
    }
  }
}
