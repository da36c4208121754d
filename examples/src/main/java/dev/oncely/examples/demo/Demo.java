package dev.oncely.examples.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerStats;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The demo: the same payment workload twice against a faulty reference server. First through the
 * SDK in a child JVM with a durable store, killed with SIGKILL part-way and resumed by a second
 * child JVM; then through a naive OkHttp client that retries without a key. Prints a progress bar
 * while the SDK runs and a comparison table at the end.
 */
public final class Demo {
  /** Default faults: lost answers, stalls past the client timeout, resets, 503 bursts. */
  public static final String DEFAULT_FAULTS =
      "drop=0.1,stall=0.02,stallfor=10s,refuse=0.05,burst503=0.01,latency=2ms,seed=42";

  private final Settings settings;
  private final PrintStream out;
  private final PrintStream err;

  /** What the demo runs. */
  public record Settings(int intents, int concurrency, FaultPlan faults, double killAt,
      Duration attemptTimeout) {}

  /** The outcome: true if the SDK run had no duplicate, no lost and no pending intent. */
  public record Result(boolean exactlyOnce, long sdkDuplicates, long naiveDuplicates) {}

  /** A demo printing progress to {@code err} and the table to {@code out}. */
  public Demo(Settings settings, PrintStream out, PrintStream err) {
    this.settings = settings;
    this.out = out;
    this.err = err;
  }

  /** Runs both halves and prints the table. */
  public Result run() throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("oncely-demo-");
    try {
      err.println("Oncely demo: " + settings.intents() + " payment intents at concurrency "
          + settings.concurrency() + " against a reference server with faults "
          + settings.faults().toSpec());
      Column sdk = sdkHalf(dir);
      Column naive = naiveHalf();
      printTable(sdk, naive);
      boolean exactlyOnce = sdk.duplicates == 0 && sdk.lost == 0 && sdk.pending == 0;
      return new Result(exactlyOnce, sdk.duplicates, naive.duplicates);
    } finally {
      deleteTree(dir);
    }
  }

  private ReferenceServer.Builder server() {
    return ReferenceServer.builder()
        .faults(settings.faults())
        .slowShare(0.05)
        .slowFor(Duration.ofMillis(300))
        .retryAfterSeconds(1);
  }

  private Column sdkHalf(Path dir) throws IOException, InterruptedException {
    err.println();
    err.println("1) Oncely: IdempotentClient + SQLite store in " + dir
        + ", client JVM killed with SIGKILL at " + Math.round(settings.killAt() * 100)
        + "% and resumed");
    try (ReferenceServer server = server().build().start()) {
      String target = server.baseUrl() + "payments";
      String store = dir.resolve("store").toString();
      List<String> common = List.of("--target", target, "--store", store,
          "--concurrency", Integer.toString(settings.concurrency()),
          "--attempt-timeout-ms", Long.toString(settings.attemptTimeout().toMillis()),
          "--progress-ms", "100");
      long started = System.nanoTime();

      List<String> runArgs = new ArrayList<>(List.of("run"));
      runArgs.addAll(common);
      runArgs.addAll(List.of("--intents", Integer.toString(settings.intents())));
      long killAt = Math.round(settings.intents() * settings.killAt());
      ProgressBar bar1 = new ProgressBar(err, "run");
      Object killed = new Object();
      ChildRun first = ChildRun.start(runArgs, dir.resolve("run.out"), p -> {
        bar1.show(p, "");
        if (p.completed() >= killAt) {
          synchronized (killed) {
            killed.notifyAll();
          }
        }
      });
      synchronized (killed) {
        while (first.last().completed() < killAt && first.isAlive()) {
          killed.wait(100);
        }
      }
      boolean wasAlive = first.isAlive();
      first.kill();
      ChildRun.Progress atKill = first.last();
      bar1.done((wasAlive ? "client JVM killed (SIGKILL) at " : "client JVM ended before the kill"
          + " point, at ") + atKill.completed() + "/" + settings.intents()
          + " completed; the server has " + server.stats().effects() + " payments");

      List<String> resumeArgs = new ArrayList<>(List.of("resume"));
      resumeArgs.addAll(common);
      ProgressBar bar2 = new ProgressBar(err, "resume");
      ChildRun second = ChildRun.start(resumeArgs, dir.resolve("resume.out"),
          p -> bar2.show(p, ""));
      int exit = second.waitFor();
      long wallMs = (System.nanoTime() - started) / 1_000_000;
      String json = second.lastStdoutLine();
      bar2.done("restarted client finished the run (exit " + exit + ")");
      if (json == null) {
        throw new IllegalStateException("resume printed no report (exit " + exit + ")");
      }
      JsonNode report = new ObjectMapper().readTree(json);
      ServerStats stats = server.stats();
      Column c = new Column();
      c.completed = report.get("completed").asLong();
      c.pending = report.get("pending").asLong() + report.get("needsReconciliation").asLong();
      c.effects = stats.effects();
      c.duplicates = stats.duplicates();
      c.lost = lost(stats);
      c.attempts = atKill.attempts() + report.get("attempts").asLong();
      c.retries = atKill.retries() + report.get("retries").asLong();
      c.polls202 = atKill.status202() + report.get("status202").asLong();
      c.status409 = atKill.status409() + report.get("status409").asLong();
      c.wallMs = wallMs;
      report.get("retriesByCause").properties()
          .forEach(e -> c.causes.put(e.getKey(), e.getValue().asLong()));
      c.faults = stats.faults().toString();
      return c;
    }
  }

  private Column naiveHalf() throws InterruptedException {
    err.println();
    err.println("2) naive: OkHttp with its default connection retries + 4 application retries on"
        + " timeouts, resets and 5xx, no idempotency key");
    try (ReferenceServer server = server().acceptKeyless(true).build().start()) {
      NaiveLoad.Report r = NaiveLoad.run(server.baseUrl() + "payments", settings.intents(),
          settings.concurrency(), settings.attemptTimeout(), 5);
      ServerStats stats = server.stats();
      Column c = new Column();
      c.completed = r.completed();
      c.pending = r.gaveUp();
      c.effects = stats.effects();
      c.duplicates = stats.duplicates();
      c.lost = lost(stats);
      c.attempts = r.attempts();
      c.retries = r.attempts() - settings.intents();
      c.wallMs = r.elapsedMs();
      c.faults = stats.faults().toString();
      err.println("  done in " + r.elapsedMs() + " ms");
      return c;
    }
  }

  /** Intents of the workload with no payment at all on the server. */
  private long lost(ServerStats stats) {
    long lost = 0;
    Map<String, Long> perOrder = stats.effectsPerOrder();
    for (int i = 0; i < settings.intents(); i++) {
      if (perOrder.getOrDefault("o-" + i, 0L) == 0) {
        lost++;
      }
    }
    return lost;
  }

  private void printTable(Column sdk, Column naive) {
    out.println();
    String format = "%-34s %-28s %-28s%n";
    out.printf(format, "", "Oncely (killed + resumed)", "naive OkHttp retries");
    out.printf(format, "intents", settings.intents(), settings.intents());
    out.printf(format, "completed (client view)", sdk.completed, naive.completed);
    out.printf(format, "still pending / gave up", sdk.pending, naive.pending);
    out.printf(format, "business effects on the server", sdk.effects, naive.effects);
    out.printf(format, "duplicates (double charges)", sdk.duplicates, naive.duplicates);
    out.printf(format, "lost (no payment at all)", sdk.lost, naive.lost);
    out.printf(format, "attempts", sdk.attempts, naive.attempts);
    out.printf(format, "retries", sdk.retries, naive.retries);
    out.printf(format, "202 answers / polls", sdk.polls202, "-");
    out.printf(format, "409 in progress", sdk.status409, "-");
    out.printf(format, "wall time", seconds(sdk.wallMs), seconds(naive.wallMs));
    out.println();
    out.println("Oncely retries by cause (restarted process): " + sdk.causes);
    out.println("faults injected, Oncely run: " + sdk.faults);
    out.println("faults injected, naive run:  " + naive.faults);
    out.println(sdk.duplicates == 0 && sdk.lost == 0 && sdk.pending == 0
        ? "Oncely: every intent took effect exactly once, across a SIGKILL."
        : "Oncely: NOT exactly once - see the table.");
    out.println("naive: " + naive.duplicates + " duplicate charges, " + naive.lost
        + " intents lost.");
  }

  private static String seconds(long ms) {
    return String.format("%.1f s", ms / 1000.0);
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException | UncheckedIOException e) {
      // A leftover temp directory is harmless; the demo result stands.
    }
  }

  /** One column of the table. */
  private static final class Column {
    long completed;
    long pending;
    long effects;
    long duplicates;
    long lost;
    long attempts;
    long retries;
    long polls202;
    long status409;
    long wallMs;
    String faults = "";
    final Map<String, Long> causes = new TreeMap<>();
  }
}
