package dev.oncely.persistence.internal.sqlite;

import dev.oncely.client.spi.sql.IntentRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.HashMap;
import java.util.List;
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

  /**
   * Binds {@code parameters} to {@code st} from the first on: a {@code byte[]} as a BLOB, a
   * {@link Long} as an INTEGER, null as NULL (the value kinds of {@link IntentRow}).
   *
   * @throws SQLException if the driver refuses a value
   * @throws IllegalArgumentException if a value is of another kind
   */
  public static void bind(PreparedStatement st, List<?> parameters) throws SQLException {
    for (int i = 0; i < parameters.size(); i++) {
      Object value = parameters.get(i);
      if (value == null) {
        st.setNull(i + 1, Types.NULL);
      } else if (value instanceof byte[] bytes) {
        st.setBytes(i + 1, bytes);
      } else if (value instanceof Long number) {
        st.setLong(i + 1, number);
      } else {
        throw new IllegalArgumentException("parameter " + (i + 1) + " is a " + value.getClass());
      }
    }
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
