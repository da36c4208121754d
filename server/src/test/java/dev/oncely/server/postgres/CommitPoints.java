package dev.oncely.server.postgres;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A real data source whose connections stop at the two sides of each commit: {@code before} runs
 * just before the database is asked to commit, {@code after} just after it committed. A test
 * looks at the database there, or a child JVM waits there to be SIGKILLed.
 */
final class CommitPoints implements DataSource {
  /** What runs at one side of a commit. */
  @FunctionalInterface
  interface Point {
    void reached() throws Exception;
  }

  private final DataSource delegate;
  private final Point before;
  private final Point after;

  CommitPoints(DataSource delegate, Point before, Point after) {
    this.delegate = delegate;
    this.before = before;
    this.after = after;
  }

  @Override
  public Connection getConnection() throws SQLException {
    Connection real = delegate.getConnection();
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
          boolean commit = method.getName().equals("commit") && method.getParameterCount() == 0;
          if (commit) {
            reach(before);
          }
          Object result;
          try {
            result = method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          if (commit) {
            reach(after);
          }
          return result;
        });
  }

  private static void reach(Point point) throws SQLException {
    try {
      point.reached();
    } catch (SQLException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new SQLException("a commit point failed", e);
    }
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return false;
  }
}
