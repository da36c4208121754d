package dev.oncely.postgres;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The server tests' door to client-postgres's package-private test fixtures (from its test-jar):
 * a fresh database on the shared PostgreSQL test server, with the app's intent store in the
 * default schema and the receipt store in schema {@value #RECEIPTS}, and child JVMs to SIGKILL.
 */
public final class ServerPostgres implements AutoCloseable {
  /** The schema the receipts live in, apart from the app's intents. */
  public static final String RECEIPTS = "oncely_receipts";

  private final String url;
  private final HikariDataSource pool;

  private ServerPostgres(String url, HikariDataSource pool) {
    this.url = url;
    this.pool = pool;
  }

  /** A fresh database with both stores' schemas applied, and a pool of 16 connections. */
  public static ServerPostgres create() {
    PostgresServer server = PostgresServer.shared();
    PGSimpleDataSource plain = server.newDatabase();
    PostgresIntentStore.migrate(plain);
    PostgresIntentStore.migrate(plain, RECEIPTS);
    String url = server.url(plain.getDatabaseName());
    return new ServerPostgres(url, PgTestDatabase.pool(url, 16));
  }

  /** The JDBC URL (the superuser, trusted on loopback). */
  public String url() {
    return url;
  }

  /** The pool. */
  public DataSource pool() {
    return pool;
  }

  /** Runs {@code sql} in its own transaction. */
  public void execute(String sql) {
    try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("SQL failed: " + e.getMessage(), e);
    }
  }

  /** Empties both stores' tables. */
  public void truncateStores() {
    execute("TRUNCATE oncely_intent, " + RECEIPTS + ".oncely_intent");
  }

  @Override
  public void close() {
    pool.close();
  }

  /** A test main class in its own JVM, SIGKILLed by {@link #kill()}. */
  public static final class Child implements AutoCloseable {
    private final ChildJvm jvm;

    private Child(ChildJvm jvm) {
      this.jvm = jvm;
    }

    /** Starts {@code mainClass} with {@code args} on this JVM's class path. */
    public static Child start(Class<?> mainClass, List<String> args, Path workDir, String name)
        throws IOException {
      return new Child(ChildJvm.start(mainClass, args, workDir, name));
    }

    /** In the child: blocks until the parent closes its stdin (or dies). */
    public static void holdUntilStdinCloses() throws IOException {
      ChildJvm.holdUntilStdinCloses();
    }

    /** Waits for the next line starting with {@code prefix}; fails with the child's stderr. */
    public String awaitLine(String prefix, long timeoutSeconds)
        throws InterruptedException, IOException {
      return jvm.awaitLine(prefix, timeoutSeconds);
    }

    /** SIGKILL, then waits for the end. */
    public void kill() throws InterruptedException {
      jvm.kill();
    }

    @Override
    public void close() {
      jvm.close();
    }
  }
}
