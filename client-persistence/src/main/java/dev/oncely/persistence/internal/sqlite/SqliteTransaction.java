package dev.oncely.persistence.internal.sqlite;

import dev.oncely.client.IntentRecord;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;

/**
 * One group commit of a {@code SqliteIntentStore}: the writer connection inside
 * {@code BEGIN IMMEDIATE}, the records its writes stored (for the read cache, after the commit),
 * and whether a write failed inside SQLite, in which case the whole batch is rolled back because
 * SQLite may already have abandoned the transaction. Used only by the caller leading the group
 * commit.
 */
public final class SqliteTransaction {
  private final Connection connection;
  private final List<IntentRecord> stored = new ArrayList<>();
  private boolean deleted;
  private Exception failure;

  SqliteTransaction(Connection connection) {
    this.connection = connection;
  }

  /** The writer connection. */
  public Connection connection() {
    return connection;
  }

  /** Notes that {@code record} was written in this transaction. */
  public void stored(IntentRecord record) {
    stored.add(record);
  }

  /** Notes that records were deleted in this transaction. */
  public void deletedSome() {
    deleted = true;
  }

  /** Notes that SQLite failed inside this transaction; the batch will not commit. */
  public void failed(Exception e) {
    if (failure == null) {
      failure = e;
    }
  }

  List<IntentRecord> storedRecords() {
    return stored;
  }

  boolean deleted() {
    return deleted;
  }

  Exception failure() {
    return failure;
  }
}
