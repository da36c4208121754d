package dev.oncely.postgres;

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
 * A test main class run in its own JVM (this JVM's java and classpath), its stdout read line by line
 * on a daemon thread and its stderr kept in a file; {@link #kill()} is SIGKILL. Its stdin stays
 * open until {@link #close()}: a child that has done its work holds until then
 * ({@link #holdUntilStdinCloses}).
 */
final class ChildJvm implements AutoCloseable {
  private static final String EOF = "\u0000EOF";

  private final Process process;
  private final Path stderr;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  private ChildJvm(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    Thread pump = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException e) {
        // The child was killed; its output ends here.
      } finally {
        lines.add(EOF);
      }
    }, "child-jvm-stdout");
    pump.setDaemon(true);
    pump.start();
  }

  static ChildJvm start(Class<?> mainClass, List<String> args, Path workDir, String name)
      throws IOException {
    Path stderr = workDir.resolve(name + ".err");
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
        "-cp", System.getProperty("java.class.path"), mainClass.getName()));
    command.addAll(args);
    Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
    return new ChildJvm(process, stderr);
  }

  /**
   * In the child: blocks until the parent closes the child's stdin ({@link #close()}, or the
   * parent's own end), so a child never outlives its test, and no child waits on a timer.
   */
  static void holdUntilStdinCloses() throws IOException {
    while (System.in.read() >= 0) {
      continue;
    }
  }

  /** Waits for the next line starting with {@code prefix} and returns it; fails on exit. */
  String awaitLine(String prefix, long timeoutSeconds) throws InterruptedException, IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (true) {
      long left = deadline - System.nanoTime();
      String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
      if (line == null || line.equals(EOF)) {
        throw new AssertionError("child never printed '" + prefix + "'"
            + (line == null ? " within " + timeoutSeconds + " s" : " before it ended")
            + "; its stderr:\n" + stderrTail());
      }
      if (line.startsWith(prefix)) {
        return line;
      }
    }
  }

  /** The next line, or null if none came within {@code millis}; {@code EOF} marks the end. */
  String pollLine(long millis) throws InterruptedException {
    String line = lines.poll(millis, TimeUnit.MILLISECONDS);
    return EOF.equals(line) ? null : line;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL, then waits for the end. */
  void kill() throws InterruptedException {
    close();
    process.waitFor(60, TimeUnit.SECONDS);
  }

  String stderrTail() throws IOException {
    if (!Files.exists(stderr)) {
      return "";
    }
    String all = Files.readString(stderr);
    return all.length() > 4000 ? all.substring(all.length() - 4000) : all;
  }

  /** SIGKILLs the child if it still runs; does not wait for its end. */
  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // The pipe is gone with the child.
    }
  }
}
