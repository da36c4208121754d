package dev.oncely.examples.shop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One {@link ShopKillChild} JVM (this JVM's {@code java} and class path, C1 and the serial
 * collector for a quick start), its stdout read line by line on a daemon thread so the parent
 * waits for a line instead of polling, its stderr kept in a file for failure messages. SQLite's
 * native library and Tomcat's temp directory go under the test's directory: a killed JVM never
 * deletes them.
 */
final class ShopProcess implements AutoCloseable {
  private static final String EOF = "\u0000EOF";
  static final Duration PATIENCE = Duration.ofSeconds(120);

  private final Process process;
  private final Path stderr;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final String name;
  private String baseUrl;
  private boolean ended;

  private ShopProcess(Process process, Path stderr, String name) {
    this.process = process;
    this.stderr = stderr;
    this.name = name;
    Thread pump = new Thread(this::pump, "shop-child-stdout-" + name);
    pump.setDaemon(true);
    pump.start();
  }

  /**
   * Starts a shop child with the {@code shop} options {@code shopArgs} and the halt point {@code
   * halt} (null for none), and waits until it listens.
   */
  static ShopProcess start(Path dir, String name, List<String> shopArgs, String halt)
      throws IOException, InterruptedException {
    Path tmp = Files.createDirectories(dir.resolve("child-tmp"));
    Path stderr = dir.resolve(name + ".err");
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m",
        "-Djava.io.tmpdir=" + tmp, "-Dorg.sqlite.tmpdir=" + tmp));
    if (halt != null) {
      command.add("-D" + ShopKillChild.HALT + "=" + halt);
    }
    command.addAll(List.of("-cp", System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path")), ShopKillChild.class.getName()));
    command.addAll(shopArgs);
    Process p = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
    p.getOutputStream().close();
    ShopProcess child = new ShopProcess(p, stderr, name);
    String listening = child.awaitLine(l -> l.startsWith("LISTENING "));
    if (listening == null) {
      throw new AssertionError(name + " ended before it listened (status "
          + child.awaitExit() + "); stderr: " + child.stderrText());
    }
    child.baseUrl = listening.substring("LISTENING ".length());
    return child;
  }

  /** The base URL the child printed. */
  String baseUrl() {
    return baseUrl;
  }

  /** The port the child listens on. */
  int port() {
    return Integer.parseInt(baseUrl.replaceAll(".*:(\\d+)/?$", "$1"));
  }

  /** Reads lines until one matches (returned) or stdout ends (null). */
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
      if (wanted.test(line)) {
        return line;
      }
    }
    return null;
  }

  /** Makes a pending or later {@link #awaitLine} return null, as if stdout had ended. */
  void interrupt() {
    lines.add(EOF);
  }

  /** Whether the child still runs. */
  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILLs the child and waits until it is gone; returns its exit status. */
  int kill() throws InterruptedException {
    process.toHandle().destroyForcibly();
    return awaitExit();
  }

  /** Waits for the child to exit (it halts itself at its halt point); returns its status. */
  int awaitExit() throws InterruptedException {
    if (!process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(name + " did not exit within " + PATIENCE.toSeconds() + " s");
    }
    return process.exitValue();
  }

  /** The completion of the child's exit. */
  java.util.concurrent.CompletableFuture<Process> onExit() {
    return process.onExit();
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

  @Override
  public void close() {
    process.destroyForcibly();
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
