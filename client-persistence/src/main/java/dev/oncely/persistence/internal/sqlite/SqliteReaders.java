package dev.oncely.persistence.internal.sqlite;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * A fixed pool of read-only SQLite connections (WAL mode lets them read beside the writer and
 * each other), each with its statements kept. A read borrows one connection for its duration.
 * Thread-safe.
 */
public final class SqliteReaders implements AutoCloseable {
  /** One read on a borrowed connection. */
  @FunctionalInterface
  public interface Read<R> {
    R apply(SqliteStatements reader) throws SQLException;
  }

  private final List<SqliteStatements> all = new ArrayList<>();
  private final BlockingQueue<SqliteStatements> idle;

  /** A pool of {@code connections}, which it owns from now on. */
  public SqliteReaders(List<Connection> connections) {
    idle = new ArrayBlockingQueue<>(connections.size());
    for (Connection c : connections) {
      SqliteStatements s = new SqliteStatements(c);
      all.add(s);
      idle.add(s);
    }
  }

  /**
   * Runs {@code read} on a connection of the pool, waiting for one if all are busy (without giving
   * up on interruption; the flag is restored).
   *
   * @throws SQLException whatever {@code read} threw
   */
  public <R> R read(Read<R> read) throws SQLException {
    SqliteStatements reader = borrow();
    try {
      return read.apply(reader);
    } finally {
      idle.add(reader);
    }
  }

  /** Waits until no read runs, then closes every connection. */
  @Override
  public void close() throws SQLException {
    SQLException failure = null;
    for (int i = 0; i < all.size(); i++) {
      SqliteStatements reader = borrow();
      try {
        reader.close();
      } catch (SQLException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private SqliteStatements borrow() {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return idle.take();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
