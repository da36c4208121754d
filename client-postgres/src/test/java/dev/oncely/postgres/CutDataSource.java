package dev.oncely.postgres;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A real data source that can be cut off, like an instance partitioned from the database (or frozen
 * in a long pause): while cut, every new connection fails with SQLState 08001.
 */
final class CutDataSource implements DataSource {
  private final DataSource delegate;
  private volatile boolean cut;

  CutDataSource(DataSource delegate) {
    this.delegate = delegate;
  }

  void cut() {
    cut = true;
  }

  void heal() {
    cut = false;
  }

  @Override
  public Connection getConnection() throws SQLException {
    if (cut) {
      throw new SQLTransientConnectionException("cut off from the database", "08001");
    }
    return delegate.getConnection();
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
    return delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return delegate.isWrapperFor(iface);
  }
}
