package dev.oncely.examples.webhookkill;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One {@link WebhookReceiverChild} JVM (this JVM's {@code java} and test class path, C1 and the
 * serial collector for a quick start): its stdout read line by line on a daemon thread into a
 * queue the parent waits on (every line also ticks the fleet's {@link Progress}), its stdin open
 * for commands, its stderr kept in a file for failure messages. SQLite's native library and the
 * temp directory go under the test's directory: a killed JVM never deletes them.
 */
final class ReceiverProcess {
  private static final String WAKE = "\u0000WAKE";
  private static final String EOF = "\u0000EOF";
  /** How long the child may print nothing while the parent waits for a line. */
  static final Duration PATIENCE = Duration.ofSeconds(120);

  private final Process process;
  private final Path stderr;
  private final String name;
  private final Progress progress;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final OutputStream stdin;
  private volatile boolean ended;
  private String baseUrl;

  private ReceiverProcess(Process process, Path stderr, String name, Progress progress) {
    this.process = process;
    this.stderr = stderr;
    this.name = name;
    this.progress = progress;
    this.stdin = process.getOutputStream();
    Thread pump = new Thread(this::pump, "receiver-stdout-" + name);
    pump.setDaemon(true);
    pump.start();
  }

  /**
   * Starts a receiver child with {@code args} and the webhook {@code secrets} by source (in its
   * environment), and waits until it listens.
   */
  static ReceiverProcess start(Path dir, String name, List<String> args,
      Map<String, String> secrets, Progress progress) throws IOException, InterruptedException {
    Path tmp = Files.createDirectories(dir.resolve("child-tmp"));
    Path stderr = dir.resolve(name + ".err");
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m",
        "-Djava.io.tmpdir=" + tmp, "-Dorg.sqlite.tmpdir=" + tmp,
        "-cp", System.getProperty("surefire.test.class.path",
            System.getProperty("java.class.path")),
        WebhookReceiverChild.class.getName()));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(stderr.toFile());
    secrets.forEach((source, secret) -> builder.environment().put(
        WebhookReceiverChild.SECRET_ENV + source.toUpperCase(Locale.ROOT), secret));
    ReceiverProcess child = new ReceiverProcess(builder.start(), stderr, name, progress);
    String listening = child.awaitLine(l -> l.startsWith("LISTENING "));
    if (listening == null) {
      throw new AssertionError(name + " ended before it listened (status " + child.awaitExit()
          + "); stderr: " + child.stderrText());
    }
    child.baseUrl = listening.substring("LISTENING ".length());
    return child;
  }

  /** The base URL the child printed, with a trailing slash. */
  String baseUrl() {
    return baseUrl;
  }

  /** The port the child listens on. */
  int port() {
    return Integer.parseInt(baseUrl.replaceAll(".*:(\\d+)/?$", "$1"));
  }

  /** Sends one command line to the child's stdin. */
  void send(String command) throws IOException {
    stdin.write((command + "\n").getBytes(StandardCharsets.UTF_8));
    stdin.flush();
  }

  /** Forgets the lines printed so far: a count of steps that follows starts now. */
  void forgetLines() {
    lines.clear();
  }

  /**
   * Reads lines until one matches (returned), or stdout ends or {@link #wake()} was called
   * (null). Fails if the child prints nothing for {@link #PATIENCE}.
   */
  String awaitLine(Predicate<String> wanted) throws InterruptedException {
    while (!ended) {
      String line = lines.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      if (line == null) {
        process.destroyForcibly();
        throw new AssertionError(name + " printed nothing for " + PATIENCE.toSeconds()
            + " s; stderr: " + stderrText());
      }
      if (line.equals(EOF)) {
        ended = true;
        return null;
      }
      if (line.equals(WAKE)) {
        return null;
      }
      if (wanted.test(line)) {
        return line;
      }
    }
    return null;
  }

  /** Makes a pending or the next {@link #awaitLine} return null. */
  void wake() {
    lines.add(WAKE);
  }

  /** SIGKILLs the child and waits until it is gone; returns its exit status. */
  int kill() throws InterruptedException {
    process.toHandle().destroyForcibly();
    return awaitExit();
  }

  /** Asks the child to stop cleanly and waits for it; returns its exit status. */
  int stop() throws IOException, InterruptedException {
    send("STOP");
    return awaitExit();
  }

  /** Waits for the child to exit; returns its status. */
  int awaitExit() throws InterruptedException {
    if (!process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(name + " did not exit within " + PATIENCE.toSeconds() + " s");
    }
    return process.exitValue();
  }

  /** Whether the child still runs. */
  boolean isAlive() {
    return process.isAlive();
  }

  /** Kills the child if it still runs (the end of a failed test). */
  void destroy() {
    process.destroyForcibly();
  }

  /** The last 4,000 characters of the child's stderr. */
  String stderrText() {
    try {
      String text = Files.readString(stderr, StandardCharsets.UTF_8);
      return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
    } catch (IOException e) {
      return "(stderr unreadable: " + e + ")";
    }
  }

  private void pump() {
    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        lines.add(line);
        progress.tick(line);
      }
    } catch (IOException e) {
      lines.add("PIPE-FAILED " + e);
    } finally {
      lines.add(EOF);
      progress.tick(EOF);
    }
  }

  /**
   * A count of the lines every receiver of a fleet printed, to wait on: whatever changes in a
   * receiver's inbox or ledger prints a line after the change, so a condition on them is checked
   * again after each tick, never on a timer.
   */
  static final class Progress {
    private long ticks;
    private final Map<String, Long> steps = new TreeMap<>();

    synchronized void tick(String line) {
      ticks++;
      if (line.startsWith("STEP ")) {
        steps.merge(line.substring("STEP ".length()), 1L, Long::sum);
      }
      notifyAll();
    }

    /**
     * How many times each step was printed by every receiver: a step printed just before a kill
     * may be missing, never one too many.
     */
    synchronized Map<String, Long> steps() {
      return new TreeMap<>(steps);
    }

    /** The ticks so far. */
    synchronized long ticks() {
      return ticks;
    }

    /**
     * Waits until there are more than {@code seen} ticks or {@code deadlineNanos} (of {@link
     * System#nanoTime()}) passes; returns whether a tick came.
     */
    synchronized boolean awaitTickAfter(long seen, long deadlineNanos)
        throws InterruptedException {
      for (long left = deadlineNanos - System.nanoTime(); ticks <= seen && left > 0;
          left = deadlineNanos - System.nanoTime()) {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return ticks > seen;
    }
  }
}
