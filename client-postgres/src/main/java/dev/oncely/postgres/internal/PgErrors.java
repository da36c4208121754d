package dev.oncely.postgres.internal;

import dev.oncely.client.spi.StoreException;
import dev.oncely.postgres.DatabaseUnavailableException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/** Turns driver failures into the store's typed exceptions, without SQL text or parameters. */
public final class PgErrors {
  private PgErrors() {}

  /** Returns the exception to throw for {@code e} raised while doing {@code what}. */
  public static StoreException translate(SQLException e, String name, String what) {
    String state = e.getSQLState();
    String message = name + ": " + what + " failed (SQLState " + state + "): " + e.getMessage();
    if (isUnavailable(e)) {
      return new DatabaseUnavailableException(message, e);
    }
    return new StoreException(message, e);
  }

  /**
   * Whether {@code e} means the database cannot be reached right now (connection failures, a
   * server shutting down or starting, a pool timing out) rather than a refused statement.
   */
  static boolean isUnavailable(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException) {
        return true;
      }
      if (t instanceof SQLException s && s.getSQLState() != null) {
        String state = s.getSQLState();
        if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
            || state.equals("57P03")) {
          return true;
        }
      }
    }
    return false;
  }
}
