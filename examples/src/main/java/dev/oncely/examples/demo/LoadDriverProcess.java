package dev.oncely.examples.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * One child JVM running a subcommand of {@link #MAIN_CLASS} ({@code java -cp CLASSPATH
 * dev.oncely.examples.Main run|resume|shop ...}): started with {@link ProcessBuilder}, its stdout
 * and stderr drained on daemon threads so it never blocks on a full pipe, killed with SIGKILL by
 * {@link #killHard()}. Keeps the first stdout line (the {@code shop}'s URL), the last one (the
 * load driver's JSON summary) and the last {@value #STDERR_TAIL_LINES} stderr lines for
 * diagnostics.
 */
public final class LoadDriverProcess implements AutoCloseable {
  /** How many stderr lines are kept for a failure message. */
  public static final int STDERR_TAIL_LINES = 20;
  /** The main class the child runs. */
  public static final String MAIN_CLASS = "dev.oncely.examples.Main";

  private final String subcommand;
  private final Process process;
  private final Thread stdoutReader;
  private final Thread stderrReader;
  private final Deque<String> stderrTail = new ArrayDeque<>();
  private volatile String lastStdoutLine;
  private final CompletableFuture<String> firstStdoutLine = new CompletableFuture<>();

  private LoadDriverProcess(String subcommand, Process process) {
    this.subcommand = subcommand;
    this.process = process;
    this.stdoutReader = drain(process.getInputStream(), subcommand + "-stdout", line -> {
      if (!line.isBlank()) {
        lastStdoutLine = line;
        firstStdoutLine.complete(line);
      }
    }, () -> firstStdoutLine.complete(null));
    this.stderrReader = drain(process.getErrorStream(), subcommand + "-stderr", line -> {
      synchronized (stderrTail) {
        stderrTail.addLast(line);
        if (stderrTail.size() > STDERR_TAIL_LINES) {
          stderrTail.removeFirst();
        }
      }
    }, () -> { });
  }

  /**
   * Starts {@code subcommand} with {@code args} in a child JVM.
   *
   * @throws UncheckedIOException if the JVM cannot be started
   */
  public static LoadDriverProcess start(DemoSettings settings, String subcommand,
      List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(settings.javaCommand().toString());
    // A short-lived load driver on a small machine: C1 alone and the serial collector leave
    // more of the CPU to the work itself.
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-cp");
    command.add(settings.classPath());
    command.add(MAIN_CLASS);
    command.add(subcommand);
    command.addAll(args);
    try {
      Process p = new ProcessBuilder(command).start();
      p.getOutputStream().close();
      return new LoadDriverProcess(subcommand, p);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the '" + subcommand + "' child JVM with "
          + settings.javaCommand(), e);
    }
  }

  /**
   * Waits up to {@code timeout} for the child to exit.
   *
   * @return true if it has exited
   */
  public boolean waitFor(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Whether the child is still running. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** The child's process id. */
  public long pid() {
    return process.pid();
  }

  /**
   * Kills the child with SIGKILL (on Linux and macOS {@link Process#destroyForcibly()} sends
   * SIGKILL): no shutdown hook, no finally block, no flush runs in it. Waits until it is gone.
   *
   * @throws IllegalStateException if it is still alive after 30 s
   */
  public void killHard() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the '" + subcommand + "' child " + process.pid()
          + " is still alive 30 s after SIGKILL");
    }
    joinReaders();
  }

  /**
   * Waits for the child to exit on its own.
   *
   * @return its exit code
   * @throws IllegalStateException if it runs longer than {@code timeout}; it is killed then
   */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      killHard();
      throw new IllegalStateException("the '" + subcommand + "' child ran longer than "
          + timeout.toSeconds() + " s and was killed");
    }
    joinReaders();
    return process.exitValue();
  }

  /**
   * Waits for the child's first stdout line (the {@code shop} prints its URL there once it
   * listens).
   *
   * @return the line, or null if the child's stdout ended first or {@code timeout} passed
   */
  public String awaitFirstLine(Duration timeout) throws InterruptedException {
    try {
      return firstStdoutLine.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      return null;
    }
  }

  /**
   * The summary of a child that exited.
   *
   * @throws IllegalArgumentException if its last stdout line is not the driver's JSON summary
   */
  public DriverReport report() {
    return DriverReport.parse(lastStdoutLine);
  }

  /** The last stderr lines of the child, oldest first, one per line. */
  public String stderrTail() {
    synchronized (stderrTail) {
      return String.join(System.lineSeparator(), stderrTail);
    }
  }

  /** Kills the child if it still runs. */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }

  private void joinReaders() throws InterruptedException {
    stdoutReader.join(TimeUnit.SECONDS.toMillis(10));
    stderrReader.join(TimeUnit.SECONDS.toMillis(10));
  }

  private static Thread drain(InputStream in, String name, Consumer<String> lines,
      Runnable ended) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          lines.accept(line);
        }
      } catch (IOException e) {
        // The pipe closes when the child is killed; what was read is kept.
      } finally {
        ended.run();
      }
    }, "oncely-demo-" + name);
    t.setDaemon(true);
    t.start();
    return t;
  }
}
