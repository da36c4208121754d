package dev.oncely.benchmarks;

import dev.oncely.benchmarks.internal.ClientLog;
import dev.oncely.benchmarks.internal.CostMeter;
import dev.oncely.benchmarks.internal.Engine;
import dev.oncely.benchmarks.internal.Http;
import dev.oncely.benchmarks.internal.Load;
import dev.oncely.benchmarks.internal.Payloads;
import dev.oncely.benchmarks.internal.Subject;
import dev.oncely.benchmarks.internal.TempDirs;
import dev.oncely.benchmarks.internal.TinyServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import okhttp3.OkHttpClient;
import one.profiler.AsyncProfiler;
import one.profiler.Counter;

/**
 * {@code --profile}: runs the throughput scenario's subjects one at a time against the minimal
 * server, warms each until the JIT settles, then records one CPU profile (async-profiler, {@code
 * event=itimer}), one allocation profile ({@code event=alloc}, weighted by bytes) and one lock
 * contention profile ({@code event=lock}, weighted by time waited) of a fixed window each.
 * Writes, per subject and profile, a flame graph ({@code .html}), the collapsed stacks ({@code
 * .collapsed}, for any flame graph tool) and {@code profile-summary.md}: where the client's samples
 * go by owner (SDK, OkHttp, store engine, JDK logging, JVM), the hottest leaf frames, and the SDK
 * methods with the largest inclusive share. The server's threads are left out of every figure.
 */
final class ProfileRun {
  private static final List<String> SERVER_THREADS = List.of("[bench-server-", "[HTTP-Dispatcher",
      "[server-timer", "[idle-timeout-task");

  private final Settings settings;
  private final List<Engine> subjects;
  private final int concurrency;
  private final Duration window;
  private final Path out;

  ProfileRun(Settings settings, List<Engine> subjects, int concurrency, Duration window, Path out) {
    this.settings = settings;
    this.subjects = subjects;
    this.concurrency = concurrency;
    this.window = window;
    this.out = out;
  }

  /** Parses {@code memory,mapdb,sqlite,plain} ({@code null} stands for plain OkHttp). */
  static List<Engine> subjects(String list) {
    List<Engine> out = new ArrayList<>();
    for (String name : list.split(",")) {
      Engine e = switch (name.trim().toLowerCase(Locale.ROOT)) {
        case "plain" -> null;
        case "memory" -> Engine.MEMORY;
        case "mapdb" -> Engine.MAPDB;
        case "sqlite" -> Engine.SQLITE;
        default -> throw new IllegalArgumentException("unknown profile subject '" + name
            + "'; known: memory,mapdb,sqlite,plain");
      };
      if (!out.contains(e)) {
        out.add(e);
      }
    }
    return out;
  }

  void run() {
    AsyncProfiler profiler = AsyncProfiler.getInstance();
    System.out.println("async-profiler " + profiler.getVersion());
    OkHttpClient http = Http.client();
    Path logDir = TempDirs.create("client-log");
    StringBuilder summary = new StringBuilder("# Profiles\n\n");
    summary.append(String.format(Locale.ROOT, "Concurrency %d, %d s per profile after the JIT"
        + " settled, minimal JDK HttpServer, ~750-byte JSON body, default listener and store"
        + " options. Shares are of the client's samples (the server's threads left out).%n%n",
        concurrency, window.toSeconds()));
    try {
      Files.createDirectories(out);
      try (TinyServer server = TinyServer.start(settings.serverThreads());
          ClientLog log = ClientLog.toFile(logDir.resolve("oncely-client.log"))) {
        String url = server.baseUrl() + "payments";
        CostMeter meter = new CostMeter(server.threadIds());
        for (Engine engine : subjects) {
          try (Subject s = engine == null
              ? Subject.plain(http, url, Payloads::order)
              : Subject.sdk(engine, http, url, null, Payloads::order)) {
            settle(s, meter);
            String name = engine == null ? "plain" : engine.name().toLowerCase(Locale.ROOT);
            profiler.execute("start,event=itimer,interval=1ms,threads");
            Load.Result cpu = Load.run(s.op(), concurrency, window, false, meter);
            profiler.execute("stop");
            String cpuStacks = profiler.dumpCollapsed(Counter.SAMPLES);
            Files.writeString(out.resolve(name + "-cpu.collapsed"), cpuStacks);
            profiler.execute("flamegraph,title=" + name + " CPU,file="
                + out.resolve(name + "-cpu.html"));
            profiler.execute("start,event=alloc,threads");
            Load.Result alloc = Load.run(s.op(), concurrency, window, false, meter);
            profiler.execute("stop");
            String allocStacks = profiler.dumpCollapsed(Counter.TOTAL);
            Files.writeString(out.resolve(name + "-alloc.collapsed"), allocStacks);
            profiler.execute("flamegraph,total,title=" + name + " allocation,file="
                + out.resolve(name + "-alloc.html"));
            profiler.execute("start,event=lock,threads");
            Load.run(s.op(), concurrency, window, false, meter);
            profiler.execute("stop");
            String lockStacks = profiler.dumpCollapsed(Counter.TOTAL);
            Files.writeString(out.resolve(name + "-lock.collapsed"), lockStacks);
            profiler.execute("flamegraph,total,title=" + name + " lock contention,file="
                + out.resolve(name + "-lock.html"));
            summary.append("## ").append(s.label()).append("\n\n");
            summary.append(String.format(Locale.ROOT, "CPU window: %.0f intents/s, client %.0f us"
                    + " CPU/intent; allocation window: %.0f intents/s, %.1f KB/intent.%n%n",
                cpu.rate(), cpu.cost().clientCpuNanos() / 1e3 / Math.max(1, cpu.ok()),
                alloc.rate(), alloc.cost().clientAllocatedBytes() / 1024.0
                    / Math.max(1, alloc.ok())));
            summary.append(Stacks.parse(cpuStacks, SERVER_THREADS).summary("CPU samples"));
            summary.append(Stacks.parse(allocStacks, SERVER_THREADS).summary("allocated bytes"));
            summary.append(Stacks.parse(lockStacks, SERVER_THREADS)
                .summary("nanoseconds waited for contended locks"));
            Files.writeString(out.resolve("profile-summary.md"), summary);
            System.out.println("    profiled " + s.label() + " -> " + out.toAbsolutePath());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write profiles to " + out, e);
    } finally {
      http.connectionPool().evictAll();
      TempDirs.delete(logDir);
    }
  }

  private void settle(Subject s, CostMeter meter) {
    long t0 = System.nanoTime();
    while (true) {
      Load.Result r = Load.run(s.op(), concurrency, settings.settleWindow(), false, meter);
      System.out.printf(Locale.ROOT, "    warm %-18s %8.0f intents/s, %s%n", s.label(),
          r.rate(), r.cost().describeCompiler());
      if (!r.cost().compilerBusy(settings.jitQuiet())
          || System.nanoTime() - t0 > settings.settleCap().toNanos()) {
        return;
      }
    }
  }

  /** Collapsed stacks ({@code frame;frame;... count}), folded into the summary's tables. */
  static final class Stacks {
    private static final String[][] OWNERS = {
        {"dev/oncely/benchmarks", "harness"},
        {"dev/oncely/", "SDK"},
        {"okhttp3/", "OkHttp"},
        {"okio/", "OkHttp"},
        {"org/mapdb/", "MapDB"},
        {"org/sqlite/", "SQLite"},
        {"com/fasterxml/jackson", "Jackson"},
        {"com/github/benmanes/caffeine", "Caffeine"},
        {"java/util/logging", "JDK logging"},
        {"sun/util/logging", "JDK logging"},
        {"org/apache/catalina", "Tomcat"},
        {"org/apache/coyote", "Tomcat"},
        {"org/apache/tomcat", "Tomcat"},
        {"org/postgresql", "PostgreSQL JDBC"},
        {"com/zaxxer/hikari", "HikariCP"},
    };
    private final Map<String, Long> owners = new HashMap<>();
    private final Map<String, Long> leaves = new HashMap<>();
    private final Map<String, Long> sdkInclusive = new HashMap<>();
    private long total;

    static Stacks parse(String collapsed, List<String> excludedThreads) {
      Stacks s = new Stacks();
      for (String line : collapsed.split("\n")) {
        int space = line.lastIndexOf(' ');
        if (space <= 0) {
          continue;
        }
        String[] frames = line.substring(0, space).split(";");
        if (excludedThreads.stream().anyMatch(frames[0]::startsWith)) {
          continue;
        }
        s.add(frames, Long.parseLong(line.substring(space + 1).trim()));
      }
      return s;
    }

    private void add(String[] frames, long n) {
      total += n;
      leaves.merge(frames[frames.length - 1], n, Long::sum);
      String owner = "JVM (GC, compiler, runtime)";
      for (int i = frames.length - 1; i >= 0; i--) {
        String o = ownerOf(frames[i]);
        if (o != null) {
          owner = o;
          break;
        }
      }
      owners.merge(owner, n, Long::sum);
      Set<String> seen = new LinkedHashSet<>();
      for (String f : frames) {
        if ("SDK".equals(ownerOf(f)) && seen.add(f)) {
          sdkInclusive.merge(f, n, Long::sum);
        }
      }
    }

    private static String ownerOf(String frame) {
      for (String[] o : OWNERS) {
        if (frame.startsWith(o[0])) {
          return o[1];
        }
      }
      return null;
    }

    /** Samples (or bytes, or nanoseconds) over every stack kept. */
    long total() {
      return total;
    }

    /** The {@code n} largest owners and their shares, as one line of text. */
    String topOwners(int n) {
      StringBuilder out = new StringBuilder();
      for (Map.Entry<String, Long> e : top(owners, n)) {
        out.append(out.length() == 0 ? "" : ", ").append(e.getKey()).append(String.format(
            Locale.ROOT, " %.0f %%", 100.0 * e.getValue() / Math.max(1, total)));
      }
      return out.toString();
    }

    String summary(String what) {
      StringBuilder out = new StringBuilder();
      out.append(String.format(Locale.ROOT, "%s: %,d. By owner (nearest known frame from the"
          + " leaf; JDK frames count for their caller):%n%n| owner | share |%n|---|---|%n", what,
          total));
      top(owners, 20).forEach(e -> out.append(row(e)));
      out.append("\nHottest leaf frames:\n\n| frame | share |\n|---|---|\n");
      top(leaves, 20).forEach(e -> out.append(row(e)));
      out.append("\nSDK methods by inclusive share:\n\n| method | share |\n|---|---|\n");
      top(sdkInclusive, 40).forEach(e -> out.append(row(e)));
      return out.append('\n').toString();
    }

    private String row(Map.Entry<String, Long> e) {
      return String.format(Locale.ROOT, "| `%s` | %.1f %% |%n", e.getKey(),
          100.0 * e.getValue() / Math.max(1, total));
    }

    private static List<Map.Entry<String, Long>> top(Map<String, Long> m, int n) {
      return m.entrySet().stream()
          .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
          .limit(n).toList();
    }
  }
}
