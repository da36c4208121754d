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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import okhttp3.OkHttpClient;

/**
 * What users run, end to end: intents/s, client-side CPU and allocation per intent for plain
 * OkHttp, the SDK's intent API over each store engine, and an untagged POST through OkHttp with the
 * {@code IdempotencyInterceptor} installed (built without a store, the default, and over MapDB),
 * each built as a user builds it (default listener, default store options), against the cheapest
 * server the JDK offers ({@link TinyServer}), so the ratio is about the client; and the latency the
 * SDK adds at concurrency 1.
 *
 * <p>Every subject is first warmed until the JIT settles: windows run until in one the compiler
 * threads' CPU time is at most {@link Settings#jitQuiet()} of the client's (compile time from the
 * {@code CompilationMXBean} is printed too, but it counts wall time, which a busy machine
 * inflates). Every measured window is judged the same way; a window in
 * which the compiler was busier is refused (printed, not reported) and the subject re-measured, up
 * to {@link #TRIES} times. Subjects are interleaved (rotated order) within each repetition; ratios
 * are per repetition.
 */
final class ThroughputScenario {
  static final String SECTION = "throughput";
  static final String COST = "cost";
  static final String LATENCY = "latency";
  static final int TRIES = 4;
  /** The intent API's engines, in comparison order. */
  private static final Engine[] SDK = {Engine.MEMORY, Engine.MAPDB, Engine.SQLITE};
  /** The interceptor's stores, in comparison order: none (its default), then MapDB. */
  private static final Engine[] INTERCEPTOR = {null, Engine.MAPDB};
  /** Every subject's label, plain OkHttp first. */
  static final List<String> SUBJECTS = subjects();
  /** Every subject but plain OkHttp, compared with it. */
  private static final List<String> COMPARED = SUBJECTS.subList(1, SUBJECTS.size());

  private final Settings settings;
  private final Results results;
  private final Map<String, List<Double>> rates = new LinkedHashMap<>();
  private final Map<String, List<Double>> cpu = new LinkedHashMap<>();
  private final Map<String, List<Double>> alloc = new LinkedHashMap<>();
  private final Map<String, List<Double>> serverCpu = new LinkedHashMap<>();
  private final Map<String, List<Double>> p50 = new LinkedHashMap<>();
  private final Map<String, List<Double>> p99 = new LinkedHashMap<>();
  private long failures;
  private long refused;
  private String firstError;

  ThroughputScenario(Settings settings, Results results) {
    this.settings = settings;
    this.results = results;
  }

  void run() {
    OkHttpClient http = Http.client();
    List<Double> fsync = new ArrayList<>();
    Path logDir = TempDirs.create("client-log");
    int most = settings.concurrencies().stream().max(Integer::compare).orElse(1);
    Map<String, Double> settleSeconds = new LinkedHashMap<>();
    try (TinyServer server = TinyServer.start(settings.serverThreads());
        ClientLog log = ClientLog.toFile(logDir.resolve("oncely-client.log"))) {
      String url = server.baseUrl() + "payments";
      CostMeter meter = new CostMeter(server.threadIds());
      for (String label : SUBJECTS) {
        try (Subject s = open(label, http, url)) {
          settleSeconds.put(s.label(), settle(s, most, meter));
        }
      }
      for (int rep = 0; rep < settings.reps(); rep++) {
        if (settings.concurrencies().contains(1)) {
          fsync.add(CommitScenario.rawForceLatency(settings.commitWindow())
              .getValueAtPercentile(50) / 1e6);
        }
        for (int ci = 0; ci < settings.concurrencies().size(); ci++) {
          int c = settings.concurrencies().get(ci);
          for (int k = 0; k < SUBJECTS.size(); k++) {
            String label = SUBJECTS.get((k + rep + ci) % SUBJECTS.size());
            try (Subject s = open(label, http, url)) {
              Load.run(s.op(), c, settings.e2eWarmup(), false);
              measure(s, c, rep, meter);
            }
          }
        }
      }
    } finally {
      http.connectionPool().evictAll();
      TempDirs.delete(logDir);
    }
    report(fsync);
    StringBuilder settled = new StringBuilder();
    settleSeconds.forEach((label, secs) -> settled.append(settled.length() == 0 ? "" : ", ")
        .append(label).append(String.format(Locale.ROOT, " %.0f s", secs)));
    results.note(SECTION, "Each figure: intents completed per second in a "
        + settings.e2eWindow().toMillis() + " ms window after " + settings.e2eWarmup().toMillis()
        + " ms of re-warming on a fresh store, subjects interleaved (rotated order) within each"
        + " repetition, against a minimal JDK HttpServer on loopback (" + settings.serverThreads()
        + " handler threads) with a ~750-byte JSON body. The SDK runs as a user builds it: default"
        + " LoggingListener (at INFO, its default level, to a file; completions are DEBUG),"
        + " default StoreOptions. 'interceptor' rows: one untagged POST without a key header"
        + " through an OkHttpClient with IdempotencyInterceptor.installOn (every other setting its"
        + " default), built without a store ('no store', the interceptor's default: a call-scoped"
        + " record) or over a MapDB store. Before measuring,"
        + " every subject ran until the JIT compiler threads' CPU time in a window was at most "
        + Math.round(settings.jitQuiet() * 100) + " % of the client's (" + settled + ");"
        + " measured windows with more were refused and re-run: " + refused + " refused. Ratios are per repetition (SDK / plain of"
        + " the same repetition). Failed intents: " + failures
        + (firstError == null ? "." : "; first: " + firstError));
    results.note(COST, "Client CPU per intent = (process CPU time - CPU time of the server's"
        + " threads, read per thread) / intents, over the measured window; it includes the GC and"
        + " JIT threads the client's work causes. Allocation per intent = bytes allocated"
        + " (com.sun.management.ThreadMXBean#getThreadAllocatedBytes) by every thread that is not"
        + " the server's / intents. Ratios are per repetition, over plain OkHttp's per request.");
  }

  private static List<String> subjects() {
    List<String> out = new ArrayList<>();
    out.add(Subject.PLAIN);
    for (Engine e : SDK) {
      out.add(Subject.label(e));
    }
    for (Engine e : INTERCEPTOR) {
      out.add(Subject.interceptorLabel(e));
    }
    return List.copyOf(out);
  }

  /** Opens the subject labelled {@code label} (one of {@link #SUBJECTS}). */
  private static Subject open(String label, OkHttpClient http, String url) {
    if (label.equals(Subject.PLAIN)) {
      return Subject.plain(http, url, Payloads::order);
    }
    for (Engine e : SDK) {
      if (label.equals(Subject.label(e))) {
        return Subject.sdk(e, http, url, null, Payloads::order);
      }
    }
    for (Engine e : INTERCEPTOR) {
      if (label.equals(Subject.interceptorLabel(e))) {
        return Subject.interceptor(e, http, url, Payloads::order);
      }
    }
    throw new IllegalArgumentException("unknown subject " + label);
  }

  /** The target of {@code label}'s rate over plain OkHttp's at concurrency {@code c}, or null. */
  private static String rateTarget(String label, int c) {
    if (c != 64) {
      return null;
    }
    if (label.equals(Subject.label(Engine.MEMORY))) {
      return ">= 0.9";
    }
    return label.equals(Subject.label(Engine.MAPDB)) || label.equals(Subject.label(Engine.SQLITE))
        ? ">= 0.6" : null;
  }

  /** The target of {@code label}'s client CPU over plain OkHttp's at concurrency {@code c}. */
  private static String cpuTarget(String label, int c) {
    if (c != 64) {
      return null;
    }
    if (label.equals(Subject.label(Engine.MEMORY))) {
      return "<= 1.3";
    }
    return label.equals(Subject.label(Engine.MAPDB)) || label.equals(Subject.label(Engine.SQLITE))
        ? "<= 2" : null;
  }

  /** Runs warm-up windows until one is quiet; returns the seconds it took. */
  private double settle(Subject s, int threads, CostMeter meter) {
    long t0 = System.nanoTime();
    long cap = settings.settleCap().toNanos();
    while (true) {
      Load.Result r = Load.run(s.op(), threads, settings.settleWindow(), false, meter);
      double secs = (System.nanoTime() - t0) / 1e9;
      boolean quiet = !r.cost().compilerBusy(settings.jitQuiet());
      System.out.printf(Locale.ROOT, "    warm %-22s c=%d %8.0f intents/s, %s%s%n", s.label(),
          threads, r.rate(), r.cost().describeCompiler(),
          quiet ? " (settled after " + Math.round(secs) + " s)" : "");
      if (quiet) {
        return secs;
      }
      if (System.nanoTime() - t0 > cap) {
        System.out.printf(Locale.ROOT, "    warm %-22s still compiling after %.0f s; measuring"
            + " anyway, busy windows are refused%n", s.label(), secs);
        return secs;
      }
    }
  }

  private void measure(Subject s, int c, int rep, CostMeter meter) {
    for (int attempt = 1; attempt <= TRIES; attempt++) {
      Load.Result r = Load.run(s.op(), c, settings.e2eWindow(), c == 1, meter);
      CostMeter.Cost cost = r.cost();
      long ok = Math.max(1, r.ok());
      double cpuUs = cost.clientCpuNanos() / 1e3 / ok;
      double allocKb = cost.clientAllocatedBytes() / 1024.0 / ok;
      double serverUs = cost.serverCpuNanos() / 1e3 / ok;
      boolean busy = cost.compilerBusy(settings.jitQuiet());
      System.out.printf(Locale.ROOT, "    rep %d c=%-2d %-22s %8.0f intents/s  client %6.0f us"
          + " CPU %6.1f KB/intent  server %4.0f us  %s%s%n", rep + 1, c, s.label(),
          r.rate(), cpuUs, allocKb, serverUs, cost.describeCompiler(),
          busy ? "  REFUSED (compiler busy), re-measuring" : "");
      if (busy) {
        refused++;
        continue;
      }
      failures += r.failed();
      if (r.firstError() != null && firstError == null) {
        firstError = s.label() + ": " + r.firstError();
      }
      put(rates, key(s.label(), c), rep, r.rate());
      put(cpu, key(s.label(), c), rep, cpuUs);
      put(alloc, key(s.label(), c), rep, allocKb);
      put(serverCpu, key(s.label(), c), rep, serverUs);
      if (c == 1) {
        put(p50, s.label(), rep, r.latencies().getValueAtPercentile(50) / 1e6);
        put(p99, s.label(), rep, r.latencies().getValueAtPercentile(99) / 1e6);
      }
      return;
    }
    System.out.printf(Locale.ROOT, "    rep %d c=%d %s: compiler busy in %d windows, no figure%n",
        rep + 1, c, s.label(), TRIES);
  }

  /** Per-repetition samples; a refused repetition stays NaN so ratios pair the same repetition. */
  private void put(Map<String, List<Double>> into, String key, int rep, double value) {
    List<Double> list = into.computeIfAbsent(key, x -> new ArrayList<>());
    while (list.size() < settings.reps()) {
      list.add(Double.NaN);
    }
    list.set(rep, value);
  }

  private void report(List<Double> fsync) {
    for (int c : settings.concurrencies()) {
      for (String label : SUBJECTS) {
        results.add(SECTION, label + ", c=" + c, "intents/s",
            present(rates.get(key(label, c))), null);
      }
      List<Double> plain = rates.get(key(Subject.PLAIN, c));
      for (String label : COMPARED) {
        List<Double> ratio = ratios(rates.get(key(label, c)), plain);
        String metric = label + " / plain, c=" + c;
        String target = rateTarget(label, c);
        if (target == null) {
          results.add(SECTION, metric, "x", ratio, null);
        } else {
          double floor = Double.parseDouble(target.substring(3));
          results.add(SECTION, metric, "x", ratio, target, v -> v >= floor, null);
        }
      }
    }
    for (int c : settings.concurrencies()) {
      for (String label : SUBJECTS) {
        results.add(COST, label + " client CPU per intent, c=" + c, "us",
            present(cpu.get(key(label, c))), null);
        if (label.equals(Subject.label(Engine.MAPDB)) && c == 64) {
          results.add(COST, label + " allocation per intent, c=" + c, "KB",
              present(alloc.get(key(label, c))), "<= 80", v -> v <= 80, null);
        } else {
          results.add(COST, label + " allocation per intent, c=" + c, "KB",
              present(alloc.get(key(label, c))), null);
        }
        results.add(COST, label + " server CPU per request, c=" + c, "us",
            present(serverCpu.get(key(label, c))), null);
      }
      List<Double> plainCpu = cpu.get(key(Subject.PLAIN, c));
      List<Double> plainAlloc = alloc.get(key(Subject.PLAIN, c));
      for (String label : COMPARED) {
        List<Double> ratio = ratios(cpu.get(key(label, c)), plainCpu);
        String metric = label + " client CPU / plain's, c=" + c;
        String target = cpuTarget(label, c);
        if (target == null) {
          results.add(COST, metric, "x", ratio, null);
        } else {
          double ceiling = Double.parseDouble(target.substring(3));
          results.add(COST, metric, "x", ratio, target, v -> v <= ceiling, null);
        }
        results.add(COST, label + " allocation / plain's, c=" + c, "x",
            ratios(alloc.get(key(label, c)), plainAlloc), null);
      }
    }
    if (!p50.isEmpty()) {
      for (String label : SUBJECTS) {
        results.add(LATENCY, label + " p50, c=1", "ms", present(p50.get(label)), null);
        results.add(LATENCY, label + " p99, c=1", "ms", present(p99.get(label)), null);
      }
      for (String label : COMPARED) {
        results.add(LATENCY, label + " added p50 over plain", "ms",
            differences(p50.get(label), p50.get(Subject.PLAIN)), null);
        results.add(LATENCY, label + " added p99 over plain", "ms",
            differences(p99.get(label), p99.get(Subject.PLAIN)), null);
      }
      results.add(LATENCY, "one raw append + force(false) p50", "ms", fsync, null);
      for (Engine e : new Engine[] {Engine.MAPDB, Engine.SQLITE}) {
        String label = Subject.label(e);
        List<Double> added = differences(p50.get(label), p50.get(Subject.PLAIN));
        results.add(LATENCY, label + " added p50 / one raw fsync", "x", ratios(added, fsync),
            "<= 2.5", v -> v <= 2.5, null);
      }
      String interceptorMapDb = Subject.interceptorLabel(Engine.MAPDB);
      results.add(LATENCY, interceptorMapDb + " added p50 / one raw fsync", "x",
          ratios(differences(p50.get(interceptorMapDb), p50.get(Subject.PLAIN)), fsync), null);
      results.note(LATENCY, "Latency of one intent at concurrency 1 (spec build + execute until"
          + " the outcome is stored), per repetition, percentiles from an HdrHistogram (3"
          + " significant digits); 'added' is SDK minus plain of the same repetition. The raw"
          + " fsync is the p50 of a 128-byte append + force(false) loop on one thread, measured in"
          + " the same repetition just before the c=1 segments.");
    }
  }

  static String key(String label, int c) {
    return label + "@" + c;
  }

  /** The samples that were measured (refused repetitions dropped). */
  static List<Double> present(List<Double> samples) {
    List<Double> out = new ArrayList<>();
    if (samples != null) {
      for (double v : samples) {
        if (!Double.isNaN(v)) {
          out.add(v);
        }
      }
    }
    return out;
  }

  /** a[i] / b[i] for every repetition both measured. */
  static List<Double> ratios(List<Double> a, List<Double> b) {
    List<Double> out = new ArrayList<>();
    if (a == null || b == null) {
      return out;
    }
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      double v = a.get(i) / b.get(i);
      if (!Double.isNaN(v)) {
        out.add(v);
      }
    }
    return out;
  }

  /** a[i] - b[i] for every repetition both measured. */
  static List<Double> differences(List<Double> a, List<Double> b) {
    List<Double> out = new ArrayList<>();
    if (a == null || b == null) {
      return out;
    }
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      double v = a.get(i) - b.get(i);
      if (!Double.isNaN(v)) {
        out.add(v);
      }
    }
    return out;
  }
}
