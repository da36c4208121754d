package dev.oncely.persistence.internal.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * One SQLite connection with its prepared statements kept for reuse, so a read or a write does
 * not parse its SQL again. Not thread-safe: one user at a time (the caller leading the group
 * commit for the writer, the borrower for a pooled reader). Callers close the result sets, never the statements.
 */
public final class SqliteStatements implements AutoCloseable {
  private final Connection connection;
  private final Map<String, PreparedStatement> prepared = new HashMap<>();

  /** Statements of {@code connection}. */
  public SqliteStatements(Connection connection) {
    this.connection = connection;
  }

  /** The connection. */
  public Connection connection() {
    return connection;
  }

  /**
   * The prepared statement for {@code sql}, prepared once per connection.
   *
   * @throws SQLException if SQLite cannot prepare it
   */
  public PreparedStatement prepare(String sql) throws SQLException {
    PreparedStatement st = prepared.get(sql);
    if (st == null) {
      st = connection.prepareStatement(sql);
      prepared.put(sql, st);
    }
    return st;
  }

  /** Closes the statements and the connection. */
  @Override
  public void close() throws SQLException {
    SQLException failure = null;
    for (PreparedStatement st : prepared.values()) {
      try {
        st.close();
      } catch (SQLException e) {
        failure = failure == null ? e : failure;
      }
    }
    prepared.clear();
    connection.close();
    if (failure != null) {
      throw failure;
    }
  }
}
