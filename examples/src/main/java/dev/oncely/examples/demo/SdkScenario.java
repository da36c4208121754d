package dev.oncely.examples.demo;

import dev.oncely.examples.cli.Command;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The SDK half of the demo: a reference server with faults in this JVM; the load driver ({@code
 * run}) in a child JVM with a durable store in a temp directory; SIGKILL of that child once the
 * server has created {@link DemoSettings#killAfter()} payments; a new child with {@code resume} on
 * the same store until every intent has a final outcome. The server counts what really happened.
 */
public final class SdkScenario {
  /** How often the server's counters are read for the progress bar and the kill point. */
  static final Duration TICK = Duration.ofMillis(50);
  /** The longest a child may run before the demo gives up on it. */
  static final Duration CHILD_TIMEOUT = Duration.ofMinutes(5);

  private final DemoSettings settings;
  private final ProgressBar bar;
  private final boolean interceptor;
  private final String name;

  /** A scenario through the intent API that reports progress on {@code bar}. */
  public SdkScenario(DemoSettings settings, ProgressBar bar) {
    this(settings, bar, false);
  }

  /**
   * A scenario that reports progress on {@code bar}; with {@code interceptor} the child drives the
   * intents through plain OkHttp with the {@code IdempotencyInterceptor} and tagged requests.
   */
  public SdkScenario(DemoSettings settings, ProgressBar bar, boolean interceptor) {
    this.settings = settings;
    this.bar = bar;
    this.interceptor = interceptor;
    this.name = interceptor ? "interceptor" : "SDK";
  }

  /**
   * Runs the scenario and returns what happened.
   *
   * @throws DemoFailedException if a child JVM fails, naming the step
   */
  public RunSummary run() throws DemoFailedException, InterruptedException {
    long started = System.nanoTime();
    Path dir = createTempDir();
    try (ReferenceServer server = ReferenceServer.builder()
        .faults(settings.faults())
        .slowShare(settings.slowShare())
        .build()
        .start()) {
      List<String> args = driverArgs(server, dir.resolve("store"));
      long killedAt = runUntilKilled(server, args);
      // resume finishes the stored intents with their keys and records those never reached.
      DriverReport report = drive("resume", name + " resume", server, args);
      ServerStats stats = server.stats();
      return new RunSummary(interceptor ? "Oncely interceptor" : "Oncely SDK", settings.intents(),
          report.completed(),
          report.pending(), stats, killedAt, Duration.ofNanos(System.nanoTime() - started));
    } finally {
      deleteQuietly(dir);
    }
  }

  private List<String> driverArgs(ReferenceServer server, Path store) {
    return List.of(
        "--target", server.baseUrl() + "payments",
        "--intents", String.valueOf(settings.intents()),
        "--concurrency", String.valueOf(settings.concurrency()),
        "--store", store.toString(),
        "--seed", String.valueOf(settings.seed()),
        "--attempt-timeout-ms", String.valueOf(settings.attemptTimeout().toMillis()),
        "--entry", interceptor ? "interceptor" : "intent-api");
  }

  /**
   * Starts {@code run} and SIGKILLs it at the kill point; returns the payments made by then, or -1
   * if it finished first.
   */
  private long runUntilKilled(ReferenceServer server, List<String> args)
      throws DemoFailedException, InterruptedException {
    int total = settings.intents();
    String note = "SIGKILL at " + settings.killAfter();
    try (LoadDriverProcess child = LoadDriverProcess.start(settings, "run", args)) {
      long deadline = System.nanoTime() + CHILD_TIMEOUT.toNanos();
      while (!child.waitFor(TICK)) {
        ServerStats s = server.stats();
        bar.update(name + " run", s.effects(), total, "req " + s.requests() + "  " + note);
        checkDeadline(child, "run", deadline);
        if (s.effects() >= settings.killAfter()) {
          child.killHard();
          long at = server.stats().effects();
          bar.finish(name + " run", at, total, "SIGKILL (pid " + child.pid() + ")");
          return at;
        }
      }
      int code = child.awaitExit(TICK);
      if (code != Command.EXIT_OK && code != Command.EXIT_PENDING) {
        throw new DemoFailedException("the 'run' child exited with " + code
            + " before the kill point (" + settings.killAfter() + " payments); its stderr:\n"
            + child.stderrTail());
      }
      // A workload this small can finish between two reads of the counters: nothing to kill.
      bar.finish(name + " run", server.stats().effects(), total,
          "finished before the kill point");
      return -1;
    }
  }

  /** Runs {@code subcommand} to its end and returns its summary. */
  private DriverReport drive(String subcommand, String label, ReferenceServer server,
      List<String> args) throws DemoFailedException, InterruptedException {
    int total = settings.intents();
    try (LoadDriverProcess child = LoadDriverProcess.start(settings, subcommand, args)) {
      long deadline = System.nanoTime() + CHILD_TIMEOUT.toNanos();
      while (!child.waitFor(TICK)) {
        ServerStats s = server.stats();
        bar.update(label, s.effects(), total, "req " + s.requests());
        checkDeadline(child, subcommand, deadline);
      }
      int code = child.awaitExit(TICK);
      ServerStats s = server.stats();
      bar.finish(label, s.effects(), total, "req " + s.requests() + "  exit " + code);
      if (code != Command.EXIT_OK && code != Command.EXIT_PENDING) {
        throw new DemoFailedException("the '" + subcommand + "' child exited with " + code
            + "; its stderr:\n" + child.stderrTail());
      }
      try {
        return child.report();
      } catch (IllegalArgumentException e) {
        throw new DemoFailedException(e.getMessage() + "; its stderr:\n" + child.stderrTail());
      }
    }
  }

  private static void checkDeadline(LoadDriverProcess child, String subcommand, long deadline)
      throws DemoFailedException, InterruptedException {
    if (System.nanoTime() > deadline) {
      child.killHard();
      throw new DemoFailedException("the '" + subcommand + "' child ran longer than "
          + CHILD_TIMEOUT.toMinutes() + " min; its stderr:\n" + child.stderrTail());
    }
  }

  private static Path createTempDir() {
    try {
      return Files.createTempDirectory("oncely-demo-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the demo's temp directory", e);
    }
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temp directory left behind is harmless; the OS cleans it.
    }
  }
}
