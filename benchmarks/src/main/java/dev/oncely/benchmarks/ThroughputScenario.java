package dev.oncely.benchmarks;

import dev.oncely.benchmarks.internal.Engine;
import dev.oncely.benchmarks.internal.Http;
import dev.oncely.benchmarks.internal.Load;
import dev.oncely.benchmarks.internal.Subject;
import dev.oncely.examples.server.ReferenceServer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import okhttp3.OkHttpClient;

/**
 * Issue items 1 and 3: end-to-end intents/s against the reference server on loopback (faults off)
 * for plain OkHttp and the SDK over each store engine, at each concurrency, interleaved within every
 * repetition; and the latency the SDK adds at concurrency 1.
 */
final class ThroughputScenario {
  static final String SECTION = "throughput";
  static final String LATENCY = "latency";
  private static final Engine[] SUBJECTS = {null, Engine.MEMORY, Engine.MAPDB, Engine.SQLITE};

  private final Settings settings;
  private final Results results;

  ThroughputScenario(Settings settings, Results results) {
    this.settings = settings;
    this.results = results;
  }

  void run() {
    OkHttpClient http = Http.client();
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    Map<String, List<Double>> p50 = new LinkedHashMap<>();
    Map<String, List<Double>> p99 = new LinkedHashMap<>();
    List<Double> fsync = new ArrayList<>();
    long failures = 0;
    String firstError = null;
    int warmThreads = settings.concurrencies().stream().max(Integer::compare).orElse(1);
    try (ReferenceServer warm = ReferenceServer.builder().build().start()) {
      for (Engine e : SUBJECTS) {
        try (Subject s = Subject.open(e, http, warm.baseUrl() + "payments")) {
          Load.run(s.op(), warmThreads, settings.e2eWarmup().multipliedBy(5), false);
        }
      }
    }
    for (int rep = 0; rep < settings.reps(); rep++) {
      try (ReferenceServer server = ReferenceServer.builder().build().start()) {
        String url = server.baseUrl() + "payments";
        if (settings.concurrencies().contains(1)) {
          fsync.add(CommitScenario.rawForceLatency(settings.commitWindow())
              .getValueAtPercentile(50) / 1e6);
        }
        for (int ci = 0; ci < settings.concurrencies().size(); ci++) {
          int c = settings.concurrencies().get(ci);
          for (int k = 0; k < SUBJECTS.length; k++) {
            Engine engine = SUBJECTS[(k + rep + ci) % SUBJECTS.length];
            try (Subject s = Subject.open(engine, http, url)) {
              Load.run(s.op(), c, settings.e2eWarmup(), false);
              Load.Result r = Load.run(s.op(), c, settings.e2eWindow(), c == 1);
              failures += r.failed();
              if (r.firstError() != null && firstError == null) {
                firstError = s.label() + ": " + r.firstError();
              }
              rates.computeIfAbsent(key(s.label(), c), x -> new ArrayList<>()).add(r.rate());
              if (c == 1) {
                p50.computeIfAbsent(s.label(), x -> new ArrayList<>())
                    .add(r.latencies().getValueAtPercentile(50) / 1e6);
                p99.computeIfAbsent(s.label(), x -> new ArrayList<>())
                    .add(r.latencies().getValueAtPercentile(99) / 1e6);
              }
              System.out.printf("    rep %d c=%d %-18s %8.0f intents/s%n", rep + 1, c, s.label(),
                  r.rate());
            }
          }
        }
      }
    }
    http.connectionPool().evictAll();
    report(rates, p50, p99, fsync);
    results.note(SECTION, "Each figure: intents completed per second in a "
        + settings.e2eWindow().toMillis() + " ms window after " + settings.e2eWarmup().toMillis()
        + " ms warm-up, one fresh store per segment, subjects interleaved (rotated order) within"
        + " each repetition. Ratios are per repetition (SDK / plain of the same repetition)."
        + " Failed intents: " + failures + (firstError == null ? "." : "; first: " + firstError));
  }

  private void report(Map<String, List<Double>> rates, Map<String, List<Double>> p50,
      Map<String, List<Double>> p99, List<Double> fsync) {
    for (int c : settings.concurrencies()) {
      for (Engine e : SUBJECTS) {
        results.add(SECTION, Subject.label(e) + ", c=" + c, "intents/s",
            rates.getOrDefault(key(Subject.label(e), c), List.of()), null);
      }
    }
    for (int c : settings.concurrencies()) {
      List<Double> plain = rates.getOrDefault(key(Subject.PLAIN, c), List.of());
      for (Engine e : new Engine[] {Engine.MEMORY, Engine.MAPDB, Engine.SQLITE}) {
        List<Double> ratio = ratios(rates.getOrDefault(key(Subject.label(e), c), List.of()), plain);
        String metric = Subject.label(e) + " / plain, c=" + c;
        if (e.durable() && c == 64) {
          results.add(SECTION, metric, "x", ratio, ">= 0.8", v -> v >= 0.8, null);
        } else if (e.durable() && c == 16) {
          results.add(SECTION, metric, "x", ratio, ">= 0.6", v -> v >= 0.6, null);
        } else {
          results.add(SECTION, metric, "x", ratio, null);
        }
      }
    }
    if (!p50.isEmpty()) {
      for (Engine e : SUBJECTS) {
        String label = Subject.label(e);
        results.add(LATENCY, label + " p50, c=1", "ms", p50.getOrDefault(label, List.of()), null);
        results.add(LATENCY, label + " p99, c=1", "ms", p99.getOrDefault(label, List.of()), null);
      }
      for (Engine e : new Engine[] {Engine.MEMORY, Engine.MAPDB, Engine.SQLITE}) {
        String label = Subject.label(e);
        results.add(LATENCY, label + " added p50 over plain", "ms",
            differences(p50.getOrDefault(label, List.of()), p50.getOrDefault(Subject.PLAIN,
                List.of())), null);
        results.add(LATENCY, label + " added p99 over plain", "ms",
            differences(p99.getOrDefault(label, List.of()), p99.getOrDefault(Subject.PLAIN,
                List.of())), null);
      }
      results.add(LATENCY, "one raw append + force(false) p50", "ms", fsync, null);
      for (Engine e : new Engine[] {Engine.MAPDB, Engine.SQLITE}) {
        String label = Subject.label(e);
        List<Double> added = differences(p50.getOrDefault(label, List.of()),
            p50.getOrDefault(Subject.PLAIN, List.of()));
        results.add(LATENCY, label + " added p50 / one raw fsync", "x", ratios(added, fsync),
            "<= 2", v -> v <= 2, null);
      }
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

  static List<Double> ratios(List<Double> a, List<Double> b) {
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      out.add(a.get(i) / b.get(i));
    }
    return out;
  }

  static List<Double> differences(List<Double> a, List<Double> b) {
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      out.add(a.get(i) - b.get(i));
    }
    return out;
  }
}
