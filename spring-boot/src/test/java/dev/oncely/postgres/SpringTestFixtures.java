package dev.oncely.postgres;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.sql.DataSource;

/**
 * The starter tests' door to client-postgres's package-private test fixtures (from its test-jar):
 * a child JVM killed with SIGKILL ({@link ChildJvm}) and a fresh database on the shared PostgreSQL
 * server ({@link PostgresServer}).
 */
public final class SpringTestFixtures {
  private SpringTestFixtures() {}

  /** A fresh, empty database on the test JVM's shared server (started on first use). */
  public static DataSource freshDatabase() {
    return PostgresServer.shared().newDatabase();
  }

  /** Starts {@code mainClass} in its own JVM on this JVM's classpath; stderr goes to workDir. */
  public static Child startChild(Class<?> mainClass, List<String> args, Path workDir, String name)
      throws IOException {
    return new Child(ChildJvm.start(mainClass, args, workDir, name));
  }

  /** A running child JVM: wait for its lines, SIGKILL it. */
  public static final class Child implements AutoCloseable {
    private final ChildJvm jvm;

    private Child(ChildJvm jvm) {
      this.jvm = jvm;
    }

    /** Waits for the next stdout line starting with {@code prefix}; fails if the child ends. */
    public String awaitLine(String prefix, long timeoutSeconds)
        throws InterruptedException, IOException {
      return jvm.awaitLine(prefix, timeoutSeconds);
    }

    /** SIGKILL, then waits for the end. */
    public void kill() throws InterruptedException {
      jvm.kill();
    }

    /** The end of the child's stderr, for failure messages. */
    public String stderrTail() throws IOException {
      return jvm.stderrTail();
    }

    @Override
    public void close() {
      jvm.close();
    }
  }
}
