package dev.oncely.postgres.internal;

import dev.oncely.client.StoreException;
import dev.oncely.postgres.DatabaseUnavailableException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.postgresql.util.PSQLException;

/** Turns driver failures into the store's typed exceptions, without SQL text, parameters or row values. */
public final class PgErrors {
  private PgErrors() {}

  /** Returns the exception to throw for {@code e} raised while doing {@code what}. */
  public static StoreException translate(SQLException e, String name, String what) {
    String state = e.getSQLState();
    String message = name + ": " + what + " failed (SQLState " + state + "): " + primaryMessage(e);
    if (isUnavailable(e)) {
      return new DatabaseUnavailableException(message, e);
    }
    return new StoreException(message, e);
  }

  /**
   * The server's primary message without its DETAIL, which can quote row values (a failing row,
   * a duplicate key); the driver's exception, kept as the cause, still has it unless the JDBC URL
   * sets {@code logServerErrorDetail=false}.
   */
  private static String primaryMessage(SQLException e) {
    if (e instanceof PSQLException p && p.getServerErrorMessage() != null) {
      return p.getServerErrorMessage().getMessage();
    }
    return e.getMessage();
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
