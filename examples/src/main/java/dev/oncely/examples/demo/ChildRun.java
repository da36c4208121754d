package dev.oncely.examples.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One load-driver process ({@code run} or {@code resume}) in a child JVM on this JVM's class path.
 * Its progress lines (stderr) are parsed and handed to a listener; its stdout goes to a file whose
 * last line is the report.
 */
final class ChildRun {
  private static final Pattern PROGRESS = Pattern.compile(
      "(\\d+)/(\\d+) driven: completed (\\d+), rejected (\\d+), conflicts (\\d+), pending (\\d+),"
          + " reconcile (\\d+), errors (\\d+); attempts (\\d+), retries (\\d+), 202s (\\d+),"
          + " 409s (\\d+)");

  private final Process process;
  private final Path stdout;
  private volatile Progress last = new Progress(0, 0, 0, 0, 0, 0, 0);

  private ChildRun(Process process, Path stdout) {
    this.process = process;
    this.stdout = stdout;
  }

  /** Starts {@code java -cp <this class path> dev.oncely.examples.Main <args>}. */
  static ChildRun start(List<String> args, Path stdout, Consumer<Progress> onProgress)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("dev.oncely.examples.Main");
    command.addAll(args);
    Process p = new ProcessBuilder(command).redirectOutput(stdout.toFile()).start();
    ChildRun child = new ChildRun(p, stdout);
    Thread pump = new Thread(() -> child.pump(onProgress), "oncely-demo-progress");
    pump.setDaemon(true);
    pump.start();
    return child;
  }

  private void pump(Consumer<Progress> onProgress) {
    try (BufferedReader err = new BufferedReader(
        new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
      for (String line = err.readLine(); line != null; line = err.readLine()) {
        Matcher m = PROGRESS.matcher(line);
        if (m.find()) {
          Progress p = new Progress(n(m, 1), n(m, 2), n(m, 3), n(m, 9), n(m, 10), n(m, 11),
              n(m, 12));
          last = p;
          onProgress.accept(p);
        }
      }
    } catch (IOException e) {
      // The child was killed: its stderr ends abruptly, which is expected here.
    }
  }

  private static long n(Matcher m, int group) {
    return Long.parseLong(m.group(group));
  }

  /** The latest progress line seen. */
  Progress last() {
    return last;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Kills the child with SIGKILL (on Linux) and waits for it to be gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(60, TimeUnit.SECONDS);
  }

  /** Waits for the child to exit and returns its exit code. */
  int waitFor() throws InterruptedException {
    return process.waitFor();
  }

  /** The last non-empty line of the child's stdout, or null. */
  String lastStdoutLine() throws IOException {
    List<String> lines = Files.readAllLines(stdout, StandardCharsets.UTF_8);
    for (int i = lines.size() - 1; i >= 0; i--) {
      if (!lines.get(i).isBlank()) {
        return lines.get(i);
      }
    }
    return null;
  }

  /** One progress line of the load driver. */
  record Progress(long driven, long intents, long completed, long attempts, long retries,
      long status202, long status409) {}
}
