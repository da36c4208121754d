package dev.oncely.persistence.crash;

import dev.oncely.persistence.internal.CommitHalts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One run of a crash child ({@link CrashChild}, {@link SdkCrashChild}) in its own JVM (same
 * classpath, {@code java} from {@code java.home}), its stdout read line by line on a daemon thread
 * so the parent can wait for a given line without sleeping, and its stderr kept in a file for
 * failure messages.
 */
final class ChildProcess {
  private static final String EOF = "\u0000EOF";
  private static final long LINE_TIMEOUT_SECONDS = 120;

  private final Process process;
  private final Path stderr;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> seen = new ArrayList<>();
  private boolean ended;

  private ChildProcess(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    Thread pump = new Thread(this::pump, "crash-child-stdout");
    pump.setDaemon(true);
    pump.start();
  }

  /**
   * Starts the store-level child. {@code haltInCommit} (may be null) arms the engine's commit crash
   * hook.
   */
  static ChildProcess start(String engine, Path store, long seed, int count, String haltInCommit,
      Path workDir, int run) throws IOException {
    return start(engine, store, seed, count, haltInCommit == null ? List.of()
        : List.of("-D" + CommitHalts.PROPERTY + "=" + haltInCommit), workDir, run);
  }

  /** Starts the store-level child with extra JVM arguments (crash points). */
  static ChildProcess start(String engine, Path store, long seed, int count,
      List<String> jvmArguments, Path workDir, int run) throws IOException {
    return start(CrashChild.class, jvmArguments, List.of(engine, store.toString(),
        Long.toString(seed), Integer.toString(count)), workDir, "child-" + run);
  }

  /**
   * Starts {@code mainClass} in a new JVM on this JVM's classpath with the extra JVM arguments
   * {@code jvmArguments} (crash points, as {@code -Dname=value}) and the program arguments
   * {@code args}; its stderr goes to {@code workDir/<name>.err}. SQLite's native library is
   * unpacked under {@code workDir}, not the shared temp dir, because a killed JVM never deletes it.
   */
  static ChildProcess start(Class<?> mainClass, List<String> jvmArguments, List<String> args,
      Path workDir, String name) throws IOException {
    Path nativeDir = Files.createDirectories(workDir.resolve("native"));
    Path stderr = workDir.resolve(name + ".err");
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
        "-Dorg.sqlite.tmpdir=" + nativeDir));
    command.addAll(jvmArguments);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
    command.addAll(args);
    Process process = new ProcessBuilder(command)
        .redirectError(stderr.toFile())
        .start();
    process.getOutputStream().close();
    return new ChildProcess(process, stderr);
  }

  /** Whether the child is still running. */
  boolean isAlive() {
    return process.isAlive();
  }

  /** Returns the next stdout line, or null once the child's stdout ended. */
  String nextLine() throws InterruptedException {
    if (ended) {
      return null;
    }
    String line = lines.poll(LINE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (line == null) {
      process.destroyForcibly();
      throw new AssertionError("the child printed nothing for " + LINE_TIMEOUT_SECONDS
          + " s; last lines " + tail() + "; stderr: " + stderrText());
    }
    if (line.equals(EOF)) {
      ended = true;
      return null;
    }
    seen.add(line);
    return line;
  }

  /**
   * SIGKILLs the child and waits until it is gone. {@link ProcessHandle#destroyForcibly()} sends
   * SIGKILL on Linux like {@link Process#destroyForcibly()}, but unlike it does not close our end of
   * the stdout pipe, so the ACKs the child printed just before dying are still read.
   */
  void kill() throws InterruptedException {
    process.toHandle().destroyForcibly();
    awaitExit();
  }

  /** Waits for the child to exit and returns its status (137 after SIGKILL or a crash hook). */
  int awaitExit() throws InterruptedException {
    if (!process.waitFor(LINE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the child did not exit within " + LINE_TIMEOUT_SECONDS + " s");
    }
    return process.exitValue();
  }

  /** Every line the child printed after the ones already read, up to the end of its stdout. */
  List<String> remainingLines() throws InterruptedException {
    List<String> rest = new ArrayList<>();
    for (String line = nextLine(); line != null; line = nextLine()) {
      rest.add(line);
    }
    return rest;
  }

  String stderrText() {
    try {
      String text = Files.readString(stderr, StandardCharsets.UTF_8);
      return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
    } catch (IOException e) {
      return "(stderr unreadable: " + e + ")";
    }
  }

  private List<String> tail() {
    return seen.subList(Math.max(0, seen.size() - 5), seen.size());
  }

  private void pump() {
    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        lines.add(line);
      }
    } catch (IOException e) {
      lines.add("PIPE-FAILED " + e);
    } finally {
      lines.add(EOF);
    }
  }
}
