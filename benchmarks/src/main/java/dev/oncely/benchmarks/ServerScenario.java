package dev.oncely.benchmarks;

import dev.oncely.benchmarks.internal.CostMeter;
import dev.oncely.benchmarks.internal.EndpointServer;
import dev.oncely.benchmarks.internal.Http;
import dev.oncely.benchmarks.internal.Load;
import dev.oncely.benchmarks.internal.Payloads;
import dev.oncely.benchmarks.internal.TempDirs;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.persistence.StoreOptions;
import dev.oncely.postgres.BenchPostgres;
import dev.oncely.postgres.PostgresIntentStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import okhttp3.OkHttpClient;
import one.profiler.AsyncProfiler;
import one.profiler.Counter;

/**
 * The server half's cost: the same endpoint (embedded Tomcat 11, a servlet answering {@code 201}
 * with a small JSON payment) without and with the {@link dev.oncely.server.servlet.IdempotencyFilter}
 * in front of it, its receipts in the embedded default engine ({@code MapDbIntentStore} in a
 * scratch dir) or in PostgreSQL ({@code PostgresIntentStore}, client-postgres's fixture with
 * {@code fsync} on, a pool of {@value #POOL}), at each concurrency of the settings. Each request is
 * a plain OkHttp POST of a ~750-byte JSON body with a fresh key.
 *
 * <p>Reported: requests/s and the ratio protected / unprotected of the same repetition; the CPU and
 * allocation of the server's threads per request (Tomcat's, the endpoints', the store's; the
 * database's processes separately); durable writes per request (the receipt store's creates and
 * compare-and-sets: reserve and complete); p50 and p99 at concurrency 1 and what the filter adds,
 * also in units of one raw {@code FileChannel.force} of the same repetition. Subjects are warmed
 * until the JIT settles, measured windows in which it was busy are refused (as in {@link
 * ThroughputScenario}), every segment runs on a fresh store, subjects are interleaved in an order
 * rotated per repetition. When the embedded engine misses its target, the protected endpoint is
 * profiled (async-profiler, {@code event=itimer}) and the profile written beside the results.
 */
final class ServerScenario {
  static final String SECTION = "server";
  static final String COST = "server cost";
  static final String LATENCY = "server latency";
  static final int TRIES = 4;
  static final int POOL = 16;
  /** The target: the embedded engine at c=64 at least this share of the unprotected endpoint. */
  static final double TARGET = 0.5;
  private static final int COUNTED_REQUESTS = 100;

  /** The three subjects. */
  enum Kind {
    UNPROTECTED("without the filter"),
    MAPDB("filter + MapDB"),
    POSTGRES("filter + PostgreSQL");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  private final Settings settings;
  private final Results results;
  private final Path out;
  private final Map<String, List<Double>> rates = new LinkedHashMap<>();
  private final Map<String, List<Double>> cpu = new LinkedHashMap<>();
  private final Map<String, List<Double>> alloc = new LinkedHashMap<>();
  private final Map<String, List<Double>> dbCpu = new LinkedHashMap<>();
  private final Map<String, List<Double>> writes = new LinkedHashMap<>();
  private final Map<String, List<Double>> p50 = new LinkedHashMap<>();
  private final Map<String, List<Double>> p99 = new LinkedHashMap<>();
  private final List<Kind> kinds = new ArrayList<>();
  private BenchPostgres pg;
  private long failures;
  private long refused;
  private String firstError;

  ServerScenario(Settings settings, Results results, Path out) {
    this.settings = settings;
    this.results = results;
    this.out = out;
  }

  void run() {
    OkHttpClient http = Http.client();
    List<Double> fsync = new ArrayList<>();
    int most = settings.concurrencies().stream().max(Integer::compare).orElse(1);
    Map<String, Double> settleSeconds = new LinkedHashMap<>();
    kinds.add(Kind.UNPROTECTED);
    kinds.add(Kind.MAPDB);
    String pgNote = startPostgres();
    try {
      for (Kind k : kinds) {
        try (Segment s = open(k, http)) {
          settleSeconds.put(k.label, settle(s, most));
        }
      }
      for (Kind k : kinds) {
        if (k != Kind.UNPROTECTED) {
          countWrites(k, http);
        }
      }
      for (int rep = 0; rep < settings.reps(); rep++) {
        if (settings.concurrencies().contains(1)) {
          fsync.add(CommitScenario.rawForceLatency(settings.commitWindow())
              .getValueAtPercentile(50) / 1e6);
        }
        for (int ci = 0; ci < settings.concurrencies().size(); ci++) {
          int c = settings.concurrencies().get(ci);
          for (int i = 0; i < kinds.size(); i++) {
            Kind k = kinds.get((i + rep + ci) % kinds.size());
            try (Segment s = open(k, http)) {
              Load.run(s.op, c, settings.e2eWarmup(), false);
              measure(s, c, rep);
            }
          }
        }
      }
      report(fsync);
      notes(settleSeconds, pgNote);
      Double mapdb = medianRatio(Kind.MAPDB, most);
      if (most >= 64 && mapdb != null && mapdb < TARGET && !"smoke".equals(settings.name())) {
        profile(http, most);
      }
    } finally {
      http.connectionPool().evictAll();
      if (pg != null) {
        pg.close();
      }
    }
  }

  /** Starts PostgreSQL; returns a note when it could not (the scenario then runs without it). */
  private String startPostgres() {
    try {
      pg = BenchPostgres.start(POOL);
      kinds.add(Kind.POSTGRES);
      return null;
    } catch (RuntimeException e) {
      System.out.println("    PostgreSQL did not start, measuring without it: " + e.getMessage());
      return "PostgreSQL was skipped: its test server did not start on this machine ("
          + e.getClass().getSimpleName() + ").";
    }
  }

  /** One subject on a fresh store: its server and the request the load sends. */
  private final class Segment implements AutoCloseable {
    final Kind kind;
    final EndpointServer server;
    final Path dir;
    final Load.Op op;

    Segment(Kind kind, OkHttpClient http) {
      this.kind = kind;
      this.dir = kind == Kind.MAPDB ? TempDirs.create("receipts") : null;
      if (kind == Kind.POSTGRES) {
        pg.truncate();
      }
      this.server = switch (kind) {
        case UNPROTECTED -> EndpointServer.unprotected();
        case MAPDB -> EndpointServer.protectedBy(() ->
            MapDbIntentStore.open(dir.resolve("receipts.db"), StoreOptions.defaults()));
        case POSTGRES -> EndpointServer.protectedBy(() ->
            PostgresIntentStore.builder(pg.pool()).owner("bench-web").build());
      };
      String url = server.url();
      this.op = seq -> Http.plainPost(http, url, Payloads.order(seq));
    }

    @Override
    public void close() {
      try {
        server.close();
      } finally {
        TempDirs.delete(dir);
      }
    }
  }

  private Segment open(Kind kind, OkHttpClient http) {
    return new Segment(kind, http);
  }

  /** Whether the JIT was busy in a window: its CPU above the share of the process's CPU. */
  private boolean jitBusy(CostMeter.Cost cost) {
    long all = cost.clientCpuNanos() + cost.serverCpuNanos();
    long jit = cost.compilerCpuNanos() >= 0 ? cost.compilerCpuNanos()
        : cost.compileMillis() * 1_000_000L;
    return jit > settings.jitQuiet() * all && jit > 20_000_000L;
  }

  /** Runs warm-up windows until one is quiet; returns the seconds it took. */
  private double settle(Segment s, int threads) {
    long t0 = System.nanoTime();
    while (true) {
      CostMeter meter = new CostMeter(s.server.threadIds());
      Load.Result r = Load.run(s.op, threads, settings.settleWindow(), false, meter);
      double secs = (System.nanoTime() - t0) / 1e9;
      boolean quiet = !jitBusy(r.cost());
      System.out.printf(Locale.ROOT, "    warm %-22s c=%d %8.0f requests/s, %s%s%n",
          s.kind.label, threads, r.rate(), r.cost().describeCompiler(),
          quiet ? " (settled after " + Math.round(secs) + " s)" : "");
      if (quiet) {
        return secs;
      }
      if (System.nanoTime() - t0 > settings.settleCap().toNanos()) {
        System.out.printf(Locale.ROOT, "    warm %-22s still compiling after %.0f s; measuring"
            + " anyway, busy windows are refused%n", s.kind.label, secs);
        return secs;
      }
    }
  }

  /** Durable writes of {@value #COUNTED_REQUESTS} requests sent one after another: exact. */
  private void countWrites(Kind kind, OkHttpClient http) {
    try (Segment s = open(kind, http)) {
      long before = s.server.writes();
      for (int i = 0; i < COUNTED_REQUESTS; i++) {
        if (!s.op.run(i)) {
          throw new IllegalStateException(kind.label + ": a request was not answered 201");
        }
      }
      double perRequest = (s.server.writes() - before) / (double) COUNTED_REQUESTS;
      results.add(SECTION, kind.label + ": durable writes per request, one at a time", "writes",
          List.of(perRequest), "= 2 (reserve, complete)", v -> v == 2.0,
          COUNTED_REQUESTS + " requests");
    } catch (Exception e) {
      throw new IllegalStateException("counting the writes of " + kind.label + " failed", e);
    }
  }

  private void measure(Segment s, int c, int rep) {
    for (int attempt = 1; attempt <= TRIES; attempt++) {
      CostMeter meter = new CostMeter(s.server.threadIds());
      long writes0 = s.server.writes();
      long db0 = s.kind == Kind.POSTGRES ? pg.cpuNanos() : -1;
      Load.Result r = Load.run(s.op, c, settings.e2eWindow(), c == 1, meter);
      long db = s.kind == Kind.POSTGRES && db0 >= 0 ? pg.cpuNanos() - db0 : -1;
      double written = s.server.writes() - writes0;
      CostMeter.Cost cost = r.cost();
      long ok = Math.max(1, r.ok());
      double cpuUs = cost.serverCpuNanos() / 1e3 / ok;
      double allocKb = cost.serverAllocatedBytes() / 1024.0 / ok;
      boolean busy = jitBusy(cost);
      System.out.printf(Locale.ROOT, "    rep %d c=%-2d %-22s %8.0f requests/s  server %5.0f us"
          + " CPU %6.1f KB/request%s  %.2f writes/request  %s%s%n", rep + 1, c, s.kind.label,
          r.rate(), cpuUs, allocKb, db >= 0 ? String.format(Locale.ROOT, "  database %5.0f us",
              db / 1e3 / ok) : "", written / ok, cost.describeCompiler(),
          busy ? "  REFUSED (compiler busy), re-measuring" : "");
      if (busy) {
        refused++;
        continue;
      }
      failures += r.failed();
      if (r.firstError() != null && firstError == null) {
        firstError = s.kind.label + ": " + r.firstError();
      }
      String key = ThroughputScenario.key(s.kind.label, c);
      put(rates, key, rep, r.rate());
      put(cpu, key, rep, cpuUs);
      put(alloc, key, rep, allocKb);
      put(writes, key, rep, written / ok);
      if (db >= 0) {
        put(dbCpu, key, rep, db / 1e3 / ok);
      }
      if (c == 1) {
        put(p50, s.kind.label, rep, r.latencies().getValueAtPercentile(50) / 1e6);
        put(p99, s.kind.label, rep, r.latencies().getValueAtPercentile(99) / 1e6);
      }
      return;
    }
    System.out.printf(Locale.ROOT, "    rep %d c=%d %s: compiler busy in %d windows, no figure%n",
        rep + 1, c, s.kind.label, TRIES);
  }

  private void put(Map<String, List<Double>> into, String key, int rep, double value) {
    List<Double> list = into.computeIfAbsent(key, x -> new ArrayList<>());
    while (list.size() < settings.reps()) {
      list.add(Double.NaN);
    }
    list.set(rep, value);
  }

  private List<Double> samples(Map<String, List<Double>> from, Kind kind, int c) {
    return ThroughputScenario.present(from.get(ThroughputScenario.key(kind.label, c)));
  }

  private Double medianRatio(Kind kind, int c) {
    List<Double> ratio = ThroughputScenario.ratios(
        rates.get(ThroughputScenario.key(kind.label, c)),
        rates.get(ThroughputScenario.key(Kind.UNPROTECTED.label, c)));
    return ratio.isEmpty() ? null : dev.oncely.benchmarks.internal.Stats.median(ratio);
  }

  private void report(List<Double> fsync) {
    for (int c : settings.concurrencies()) {
      for (Kind k : kinds) {
        results.add(SECTION, k.label + ", c=" + c, "requests/s", samples(rates, k, c), null);
      }
      for (Kind k : kinds) {
        if (k == Kind.UNPROTECTED) {
          continue;
        }
        List<Double> ratio = ThroughputScenario.ratios(
            rates.get(ThroughputScenario.key(k.label, c)),
            rates.get(ThroughputScenario.key(Kind.UNPROTECTED.label, c)));
        String metric = k.label + " / without, c=" + c;
        if (k == Kind.MAPDB && c == 64) {
          results.add(SECTION, metric, "x", ratio, ">= " + TARGET, v -> v >= TARGET, null);
        } else {
          results.add(SECTION, metric, "x", ratio, null);
        }
        results.add(SECTION, k.label + ": durable writes per request in the windows, c=" + c,
            "writes", samples(writes, k, c), null);
      }
    }
    for (int c : settings.concurrencies()) {
      for (Kind k : kinds) {
        results.add(COST, k.label + ": server threads' CPU per request, c=" + c, "us",
            samples(cpu, k, c), null);
        results.add(COST, k.label + ": server threads' allocation per request, c=" + c, "KB",
            samples(alloc, k, c), null);
      }
      for (Kind k : kinds) {
        if (k == Kind.UNPROTECTED) {
          continue;
        }
        results.add(COST, k.label + ": server CPU / without's, c=" + c, "x",
            ThroughputScenario.ratios(cpu.get(ThroughputScenario.key(k.label, c)),
                cpu.get(ThroughputScenario.key(Kind.UNPROTECTED.label, c))), null);
        results.add(COST, k.label + ": server allocation - without's, c=" + c, "KB",
            ThroughputScenario.differences(alloc.get(ThroughputScenario.key(k.label, c)),
                alloc.get(ThroughputScenario.key(Kind.UNPROTECTED.label, c))), null);
      }
      if (kinds.contains(Kind.POSTGRES)) {
        results.add(COST, Kind.POSTGRES.label + ": database processes' CPU per request, c=" + c,
            "us", samples(dbCpu, Kind.POSTGRES, c), null);
      }
    }
    if (p50.isEmpty()) {
      return;
    }
    for (Kind k : kinds) {
      results.add(LATENCY, k.label + " p50, c=1", "ms",
          ThroughputScenario.present(p50.get(k.label)), null);
      results.add(LATENCY, k.label + " p99, c=1", "ms",
          ThroughputScenario.present(p99.get(k.label)), null);
    }
    results.add(LATENCY, "one raw append + force(false) p50", "ms", fsync, null);
    for (Kind k : kinds) {
      if (k == Kind.UNPROTECTED) {
        continue;
      }
      List<Double> added50 = ThroughputScenario.differences(p50.get(k.label),
          p50.get(Kind.UNPROTECTED.label));
      List<Double> added99 = ThroughputScenario.differences(p99.get(k.label),
          p99.get(Kind.UNPROTECTED.label));
      results.add(LATENCY, k.label + " added p50", "ms", added50, null);
      results.add(LATENCY, k.label + " added p99", "ms", added99, null);
      results.add(LATENCY, k.label + " added p50 / one raw fsync", "x",
          ThroughputScenario.ratios(added50, fsync), null);
      results.add(LATENCY, k.label + " added p99 / one raw fsync", "x",
          ThroughputScenario.ratios(added99, fsync), null);
    }
  }

  private void notes(Map<String, Double> settleSeconds, String pgNote) {
    StringBuilder settled = new StringBuilder();
    settleSeconds.forEach((label, secs) -> settled.append(settled.length() == 0 ? "" : ", ")
        .append(label).append(String.format(Locale.ROOT, " %.0f s", secs)));
    results.note(SECTION, "Each figure: requests answered 201 per second in a "
        + settings.e2eWindow().toMillis() + " ms window after " + settings.e2eWarmup().toMillis()
        + " ms of re-warming on a fresh store (a new MapDB store in a scratch dir; the PostgreSQL"
        + " table truncated), subjects interleaved (rotated order) within each repetition. The"
        + " endpoint: embedded Tomcat 11 on loopback (HTTP/1.1, default thread pool, keep-alive"
        + " without a request limit), a servlet reading the body and answering 201 with a "
        + EndpointServer.ANSWER_BYTES + "-byte JSON payment; protected, the same servlet behind IdempotencyFilter with the"
        + " default EndpointPolicy (key required, 30 s lease, 24 h retention). Requests: plain"
        + " OkHttp POSTs of a ~750-byte JSON body, each with a fresh random Idempotency-Key, from"
        + " the same JVM. "
        + (pgNote == null ? "PostgreSQL: client-postgres's test server (" + pg.settings()
            + "), its processes on the same cores, PostgresIntentStore on a HikariCP pool of "
            + POOL + "." : pgNote) + " JIT settled before measuring (" + settled
        + "); windows with compiler CPU above " + Math.round(settings.jitQuiet() * 100)
        + " % of the process's were refused and re-run: " + refused + " refused. Failed"
        + " requests: " + failures + (firstError == null ? "." : "; first: " + firstError)
        + " Durable writes are the receipt store's create and compareAndSet calls (a counting"
        + " decorator); one at a time they are exact, in the windows a request in flight at an"
        + " edge is counted on one side only.");
    results.note(COST, "Server threads: every thread started with the endpoint (Tomcat's"
        + " acceptor, poller and workers, the endpoints' lease timer, the store's own threads)"
        + " but the load's and OkHttp's; their CPU (ThreadMXBean#getThreadCpuTime) and allocation"
        + " (getThreadAllocatedBytes) over the window / requests. GC and JIT threads are not"
        + " in it. The database's processes' CPU comes from /proc (the postmaster, its backends"
        + " and the children it reaped).");
    results.note(LATENCY, "Latency of one request at concurrency 1 as the client sees it"
        + " (send until the body is read), percentiles from an HdrHistogram per repetition;"
        + " 'added' is protected minus unprotected of the same repetition, and in units of the"
        + " p50 of one raw 128-byte append + force(false) measured in the same repetition just"
        + " before the c=1 segments.");
  }

  /**
   * The embedded engine missed its target: a CPU profile (itimer) and an allocation profile of the
   * protected endpoint at {@code c}, written to {@code <out>/profile-server}, the owners' shares
   * added to the results' notes.
   */
  private void profile(OkHttpClient http, int c) {
    Path dir = out.resolve("profile-server");
    List<String> client = List.of("[bench-load-", "[OkHttp");
    try {
      Files.createDirectories(dir);
      AsyncProfiler profiler = AsyncProfiler.getInstance();
      StringBuilder summary = new StringBuilder("# Profile of the protected endpoint (MapDB)\n\n");
      for (Kind kind : new Kind[] {Kind.MAPDB, Kind.UNPROTECTED}) {
        String name = kind == Kind.MAPDB ? "mapdb" : "without";
        try (Segment s = open(kind, http)) {
          Load.run(s.op, c, settings.e2eWarmup(), false);
          profiler.execute("start,event=itimer,interval=1ms,threads");
          Load.Result r = Load.run(s.op, c, java.time.Duration.ofSeconds(20), false);
          profiler.execute("stop");
          String stacks = profiler.dumpCollapsed(Counter.SAMPLES);
          Files.writeString(dir.resolve(name + "-cpu.collapsed"), stacks);
          profiler.execute("flamegraph,title=" + name + " CPU,file="
              + dir.resolve(name + "-cpu.html"));
          profiler.execute("start,event=alloc,threads");
          Load.run(s.op, c, java.time.Duration.ofSeconds(10), false);
          profiler.execute("stop");
          String allocStacks = profiler.dumpCollapsed(Counter.TOTAL);
          Files.writeString(dir.resolve(name + "-alloc.collapsed"), allocStacks);
          summary.append("## ").append(kind.label).append(String.format(Locale.ROOT,
              ", c=%d: %.0f requests/s in the profiled window%n%n", c, r.rate()));
          ProfileRun.Stacks all = ProfileRun.Stacks.parse(stacks, List.of());
          ProfileRun.Stacks server = ProfileRun.Stacks.parse(stacks, client);
          summary.append(String.format(Locale.ROOT, "Client (load and OkHttp threads) share of"
              + " all CPU samples: %.1f %%.%n%n", 100.0 - 100.0 * server.total() / Math.max(1,
                  all.total())));
          summary.append(server.summary("CPU samples of every thread but the client's"));
          summary.append(ProfileRun.Stacks.parse(allocStacks, client)
              .summary("bytes allocated by every thread but the client's"));
          if (kind == Kind.MAPDB) {
            results.note(SECTION, "The embedded engine missed its target; a profile of the"
                + " protected endpoint at c=" + c + " is in " + dir + " (" + server.topOwners(5)
                + " of the non-client CPU samples).");
          }
        }
      }
      Files.writeString(dir.resolve("profile-summary.md"), summary);
      System.out.println("    profiled the protected endpoint -> " + dir.toAbsolutePath());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the server profile to " + dir, e);
    }
  }
}
