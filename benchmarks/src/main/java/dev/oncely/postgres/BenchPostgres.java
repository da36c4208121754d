package dev.oncely.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The benchmarks' door to client-postgres's package-private test fixture ({@link PostgresServer},
 * from its test-jar): a PostgreSQL server of its own with {@code fsync} on, one migrated database,
 * a HikariCP pool on it, and the CPU time of the server's processes. {@link #close()} stops and
 * deletes it.
 */
public final class BenchPostgres implements AutoCloseable {
  /** USER_HZ, the unit of CPU times in {@code /proc}. */
  private static final long CLOCK_TICKS = 100;

  private final PostgresServer server;
  private final HikariDataSource pool;
  private final int poolSize;

  private BenchPostgres(PostgresServer server, HikariDataSource pool, int poolSize) {
    this.server = server;
    this.pool = pool;
    this.poolSize = poolSize;
  }

  /**
   * Starts a server (fsync on), creates a database with the store's schema and a pool of {@code
   * poolSize} connections on it.
   *
   * @throws IllegalStateException if the server cannot start (no binaries for this machine)
   */
  public static BenchPostgres start(int poolSize) {
    return start(poolSize, true);
  }

  /**
   * Starts a server (fsync on) as {@link #start(int)} does; with {@code waitForCommits} false every
   * connection of the pool runs with {@code synchronous_commit=off}, so a commit returns before its
   * WAL reaches the disk (the rows, indexes and WAL written are the same): for filling a store
   * whose size is measured, not for timing commits.
   *
   * @throws IllegalStateException if the server cannot start (no binaries for this machine)
   */
  public static BenchPostgres start(int poolSize, boolean waitForCommits) {
    PostgresServer server = PostgresServer.startDurable();
    PGSimpleDataSource plain = server.newDatabase();
    PostgresIntentStore.migrate(plain);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(server.url(plain.getDatabaseName()));
    config.setUsername("postgres");
    config.setMaximumPoolSize(poolSize);
    config.setMinimumIdle(poolSize);
    config.setConnectionTimeout(10_000);
    config.setPoolName("bench-pg");
    if (!waitForCommits) {
      config.setConnectionInitSql("SET synchronous_commit TO off");
    }
    return new BenchPostgres(server, new HikariDataSource(config), poolSize);
  }

  /** The pool on the benchmark database. */
  public DataSource pool() {
    return pool;
  }

  /** Connections in the pool. */
  public int poolSize() {
    return poolSize;
  }

  /** What the server runs with, as it says: version, fsync, synchronous_commit, wal_sync_method. */
  public String settings() {
    StringBuilder out = new StringBuilder("PostgreSQL");
    try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
      for (String name : new String[] {"server_version", "fsync", "synchronous_commit",
          "wal_sync_method"}) {
        try (java.sql.ResultSet rs = st.executeQuery("SHOW " + name)) {
          rs.next();
          out.append(name.equals("server_version") ? " " : ", " + name + "=")
              .append(rs.getString(1));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("reading the server's settings failed: " + e, e);
    }
    return out.toString();
  }

  /** Deletes every row of the store's table, so the next store starts empty. */
  public void truncate() {
    try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
      st.execute("TRUNCATE oncely_intent");
      st.execute("CHECKPOINT");
    } catch (SQLException e) {
      throw new IllegalStateException("emptying the benchmark table failed: " + e, e);
    }
  }

  /**
   * CPU time so far of this server's processes (the postmaster, its live children and the
   * children it reaped), read from {@code /proc}; -1 where it cannot be read.
   */
  public long cpuNanos() {
    Path proc = Path.of("/proc");
    if (!Files.isDirectory(proc)) {
      return -1;
    }
    long postmaster = -1;
    String port = Integer.toString(server.port());
    try (DirectoryStream<Path> pids = Files.newDirectoryStream(proc, "[0-9]*")) {
      for (Path pid : pids) {
        List<String> args = commandLine(pid);
        int p = args.indexOf("-p");
        if (!args.isEmpty() && args.get(0).endsWith("/postgres") && p >= 0
            && p + 1 < args.size() && args.get(p + 1).equals(port)) {
          postmaster = Long.parseLong(pid.getFileName().toString());
          break;
        }
      }
    } catch (IOException e) {
      return -1;
    }
    if (postmaster < 0) {
      return -1;
    }
    long ticks = 0;
    try (DirectoryStream<Path> pids = Files.newDirectoryStream(proc, "[0-9]*")) {
      for (Path pid : pids) {
        String[] f = stat(pid);
        if (f == null) {
          continue;
        }
        // Fields after "(comm)": ppid is field 4, utime 14, stime 15, cutime 16, cstime 17.
        boolean self = Long.parseLong(pid.getFileName().toString()) == postmaster;
        if (self) {
          ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13])
              + Long.parseLong(f[14]);
        } else if (Long.parseLong(f[1]) == postmaster) {
          ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return ticks * (1_000_000_000L / CLOCK_TICKS);
  }

  private static List<String> commandLine(Path pid) {
    try {
      String raw = new String(Files.readAllBytes(pid.resolve("cmdline")), StandardCharsets.UTF_8);
      return raw.isEmpty() ? List.of() : Arrays.asList(raw.split("\0"));
    } catch (IOException | RuntimeException gone) {
      return List.of();
    }
  }

  /** The fields after the command name of {@code /proc/<pid>/stat}, or null if it is gone. */
  private static String[] stat(Path pid) {
    try {
      String stat = Files.readString(pid.resolve("stat"));
      int close = stat.lastIndexOf(')');
      return close < 0 ? null : stat.substring(close + 2).split(" ");
    } catch (IOException | RuntimeException gone) {
      return null;
    }
  }

  /** Closes the pool, stops the server and deletes its data. */
  @Override
  public void close() {
    pool.close();
    server.close();
  }
}
