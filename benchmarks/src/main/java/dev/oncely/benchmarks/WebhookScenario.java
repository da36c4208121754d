package dev.oncely.benchmarks;

import dev.oncely.benchmarks.internal.CostMeter;
import dev.oncely.benchmarks.internal.Engine;
import dev.oncely.benchmarks.internal.Http;
import dev.oncely.benchmarks.internal.InboxTally;
import dev.oncely.benchmarks.internal.InboxWrites;
import dev.oncely.benchmarks.internal.Load;
import dev.oncely.benchmarks.internal.ParallelFill;
import dev.oncely.benchmarks.internal.Payloads;
import dev.oncely.benchmarks.internal.Stats;
import dev.oncely.benchmarks.internal.TempDirs;
import dev.oncely.benchmarks.internal.WebhookSender;
import dev.oncely.benchmarks.internal.WebhookServer;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.postgres.BenchPostgres;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import dev.oncely.server.internal.InboxRecords;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import okhttp3.OkHttpClient;

/**
 * Webhook receipt: Standard Webhooks-signed events (~1 KB JSON, {@link Payloads#event}) posted by
 * OkHttp to embedded Tomcat 11, verified and answered {@code 200} by a baseline servlet that
 * stores nothing, or by the library's {@code WebhookServlet} + {@code WebhookReceiver} + {@code
 * Inbox} (defaults: 4 workers) on the embedded default engine (MapDB), on SQLite, and on
 * PostgreSQL when its test server starts; see {@link WebhookServer}.
 *
 * <p>Reported per concurrency: events accepted per second and the ratio to the baseline of the
 * same repetition; the latency a sender sees before its {@code 2xx} (p50, p99, max) and what the
 * inbox adds; the receiving threads' CPU and allocation per accepted event and the inbox threads'
 * per handled event; durable writes per event (100 one at a time, exact, and over the windows);
 * how fast the workers handle behind the load and drain what it left; that every accepted event
 * was handled, once. Then, per embedded engine, the accept rate on a store already holding
 * {@code messages} handled messages against a fresh store. Warm-up, JIT settle check, refused
 * windows, rotated order and fresh stores as in {@link ServerScenario}; after each warm-up and
 * each measured window the workers drain the backlog, so every window starts with an empty
 * queue.
 */
final class WebhookScenario {
  static final String SECTION = "webhook";
  static final String COST = "webhook cost";
  static final String LATENCY = "webhook latency";
  static final String SCALE = "webhook scale";
  static final int TRIES = 4;
  static final int POOL = 16;
  private static final int COUNTED_EVENTS = 100;
  private static final int FILL_THREADS = 64;
  private static final int SCALE_REPS = 2;
  private static final Duration FILL_BUDGET = Duration.ofMinutes(8);
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);
  /** A drain rate is reported only for a backlog at least this long. */
  private static final int MIN_BACKLOG = 200;

  /** The subjects. */
  enum Kind {
    BASELINE("verify only"),
    MAPDB("inbox + MapDB"),
    SQLITE("inbox + SQLite"),
    POSTGRES("inbox + PostgreSQL");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  private final Settings settings;
  private final Results results;
  private final int messages;
  private final byte[] key = WebhookSender.newKey();
  private final Map<String, List<Double>> rates = new LinkedHashMap<>();
  private final Map<String, List<Double>> cpu = new LinkedHashMap<>();
  private final Map<String, List<Double>> alloc = new LinkedHashMap<>();
  private final Map<String, List<Double>> inboxCpu = new LinkedHashMap<>();
  private final Map<String, List<Double>> inboxAlloc = new LinkedHashMap<>();
  private final Map<String, List<Double>> dbCpu = new LinkedHashMap<>();
  private final Map<String, List<Double>> creates = new LinkedHashMap<>();
  private final Map<String, List<Double>> updates = new LinkedHashMap<>();
  private final Map<String, List<Double>> handledRate = new LinkedHashMap<>();
  private final Map<String, List<Double>> drainRate = new LinkedHashMap<>();
  private final Map<String, List<Double>> drainCpu = new LinkedHashMap<>();
  private final Map<String, List<Double>> drainAlloc = new LinkedHashMap<>();
  private final Map<String, List<Double>> backlog = new LinkedHashMap<>();
  private final Map<String, List<Double>> p50 = new LinkedHashMap<>();
  private final Map<String, List<Double>> p99 = new LinkedHashMap<>();
  private final Map<String, List<Double>> max = new LinkedHashMap<>();
  private final Map<Kind, long[]> checks = new LinkedHashMap<>();
  private final Map<Kind, long[]> scaleChecks = new LinkedHashMap<>();
  private final List<Kind> kinds = new ArrayList<>();
  private BenchPostgres pg;
  private long failures;
  private long scaleFailures;
  private long refused;
  private String firstError;

  WebhookScenario(Settings settings, Results results, int messages) {
    if (messages < 1) {
      throw new IllegalArgumentException("messages must be >= 1, was " + messages);
    }
    this.settings = settings;
    this.results = results;
    this.messages = messages;
  }

  void run() {
    OkHttpClient http = Http.client();
    List<Double> fsync = new ArrayList<>();
    int most = settings.concurrencies().stream().max(Integer::compare).orElse(1);
    Map<String, Double> settleSeconds = new LinkedHashMap<>();
    kinds.add(Kind.BASELINE);
    kinds.add(Kind.MAPDB);
    kinds.add(Kind.SQLITE);
    String pgNote = startPostgres();
    try {
      for (Kind k : kinds) {
        try (Segment s = new Segment(k, http, null)) {
          settleSeconds.put(k.label, settle(s, most));
        }
      }
      for (Kind k : kinds) {
        if (k != Kind.BASELINE) {
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
            try (Segment s = new Segment(k, http, null)) {
              warm(s, c);
              measure(s, c, rep);
              check(s, checks);
            }
          }
        }
      }
      report(fsync);
      notes(settleSeconds, pgNote);
    } finally {
      if (pg != null) {
        pg.close();
        pg = null;
      }
    }
    try {
      scale(http, most);
    } finally {
      http.connectionPool().evictAll();
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

  /** One subject on a fresh store (or the store in a given directory): its server and sender. */
  private final class Segment implements AutoCloseable {
    final Kind kind;
    final WebhookServer server;
    final WebhookSender sender;
    final Path dir;
    final boolean ownsDir;
    final Load.Op op;

    Segment(Kind kind, OkHttpClient http, Path existing) {
      this.kind = kind;
      this.ownsDir = existing == null && (kind == Kind.MAPDB || kind == Kind.SQLITE);
      this.dir = existing != null ? existing : ownsDir ? TempDirs.create("inbox") : null;
      if (kind == Kind.POSTGRES) {
        pg.truncate();
      }
      Supplier<IntentStore> store = switch (kind) {
        case BASELINE -> null;
        case MAPDB -> () -> Engine.MAPDB.open(dir);
        case SQLITE -> () -> Engine.SQLITE.open(dir);
        case POSTGRES -> () -> PostgresIntentStore.builder(pg.pool()).owner("bench-inbox").build();
      };
      this.server = store == null ? WebhookServer.verifyOnly(key)
          : WebhookServer.receiving(key, store);
      this.sender = new WebhookSender(http, server.url(), key);
      this.op = seq -> sender.send();
    }

    InboxTally tally() {
      return server.tally();
    }

    @Override
    public void close() {
      try {
        server.close();
      } finally {
        if (ownsDir) {
          TempDirs.delete(dir);
        }
      }
    }
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
      CostMeter meter = new CostMeter(s.server::threadIds);
      Load.Result r = Load.run(s.op, threads, settings.settleWindow(), false, meter);
      double secs = (System.nanoTime() - t0) / 1e9;
      boolean quiet = !jitBusy(r.cost());
      System.out.printf(Locale.ROOT, "    warm %-22s c=%d %8.0f accepted/s, %s%s%n",
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

  /** Re-warms a fresh segment, then lets the workers drain what that left. */
  private void warm(Segment s, int c) {
    Load.run(s.op, c, settings.e2eWarmup(), false);
    drain(s);
  }

  /**
   * Waits until the workers handled every event accepted so far.
   *
   * @return the seconds it took, or NaN when it did not finish within the timeout
   */
  private double drain(Segment s) {
    if (s.tally() == null) {
      return 0;
    }
    long t0 = System.nanoTime();
    boolean done = s.tally().awaitHandled(s.tally().accepted(), DRAIN_TIMEOUT);
    if (!done) {
      System.out.printf(Locale.ROOT, "    %s: the workers did not drain %d events within %s%n",
          s.kind.label, s.tally().accepted() - s.tally().handled(), DRAIN_TIMEOUT);
      return Double.NaN;
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  /**
   * Durable writes of {@value #COUNTED_EVENTS} events sent one after another, each handled before
   * the next is sent: exact.
   */
  private void countWrites(Kind kind, OkHttpClient http) {
    try (Segment s = new Segment(kind, http, null)) {
      InboxWrites.Counts before = s.server.writes();
      for (int i = 0; i < COUNTED_EVENTS; i++) {
        long handled = s.tally().handled();
        if (!s.op.run(i)) {
          throw new IllegalStateException(kind.label + ": an event was not answered 200");
        }
        if (!s.tally().awaitHandled(handled + 1, DRAIN_TIMEOUT)) {
          throw new IllegalStateException(kind.label + ": an event was not handled in time");
        }
      }
      InboxWrites.Counts w = s.server.writes().minus(before);
      double n = COUNTED_EVENTS;
      results.add(SECTION, kind.label + ": writes before the 2xx per accepted event, one at a"
          + " time", "writes", List.of(w.receivingCreates() / n), "= 1 (the insert)",
          v -> v == 1.0, COUNTED_EVENTS + " events");
      results.add(SECTION, kind.label + ": workers' writes per handled event, one at a time",
          "writes", List.of(w.inboxUpdates() / n), "= 2 (take, complete)", v -> v == 2.0,
          COUNTED_EVENTS + " events");
      results.add(SECTION, kind.label + ": claims + releases per handled event, one at a time",
          "calls", List.of((w.claims() + w.releases()) / n), kind == Kind.POSTGRES
              ? "committed UPDATEs on PostgreSQL" : "in memory on this engine");
      results.add(SECTION, kind.label + ": other writes, one at a time", "writes",
          List.of((double) (w.receivingUpdates() + w.inboxCreates())), "= 0", v -> v == 0.0,
          null);
      check(s, checks);
    } catch (Exception e) {
      throw new IllegalStateException("counting the writes of " + kind.label + " failed", e);
    }
  }

  private void measure(Segment s, int c, int rep) {
    for (int attempt = 1; attempt <= TRIES; attempt++) {
      // Thread sets read at both ends of a window: Tomcat ends workers idle for a minute (a long
      // drain) and starts them again under the load.
      CostMeter meter = new CostMeter(s.server::receivingThreadIds);
      CostMeter inboxMeter = new CostMeter(s.server::inboxThreadIds);
      InboxWrites.Counts w0 = s.server.writes();
      long handled0 = s.tally() == null ? 0 : s.tally().handled();
      long accepted0 = s.sender.accepted();
      long db0 = s.kind == Kind.POSTGRES ? pg.cpuNanos() : -1;
      inboxMeter.start();
      Load.Result r = Load.run(s.op, c, settings.e2eWindow(), true, meter);
      CostMeter.Cost inboxCost = inboxMeter.stop();
      long db = s.kind == Kind.POSTGRES && db0 >= 0 ? pg.cpuNanos() - db0 : -1;
      long handled = s.tally() == null ? 0 : s.tally().handled() - handled0;
      long left = s.tally() == null ? 0 : s.tally().accepted() - s.tally().handled();
      CostMeter drainMeter = new CostMeter(s.server::threadIds);
      drainMeter.start();
      double drainSecs = drain(s);
      CostMeter.Cost drainCost = drainMeter.stop();
      InboxWrites.Counts w = s.server.writes().minus(w0);
      CostMeter.Cost cost = r.cost();
      long ok = Math.max(1, r.ok());
      double cpuUs = cost.serverCpuNanos() / 1e3 / ok;
      double allocKb = cost.serverAllocatedBytes() / 1024.0 / ok;
      double inboxUs = inboxCost.serverCpuNanos() / 1e3 / Math.max(1, handled);
      double inboxKb = inboxCost.serverAllocatedBytes() / 1024.0 / Math.max(1, handled);
      double drainPerSec = left >= MIN_BACKLOG && drainSecs > 0 ? left / drainSecs : Double.NaN;
      double drainUs = Double.isNaN(drainPerSec) ? Double.NaN
          : drainCost.serverCpuNanos() / 1e3 / left;
      double drainKb = Double.isNaN(drainPerSec) ? Double.NaN
          : drainCost.serverAllocatedBytes() / 1024.0 / left;
      boolean busy = jitBusy(cost);
      System.out.printf(Locale.ROOT, "    rep %d c=%-2d %-20s %7.0f accepted/s  p50 %6.2f p99 %6.2f"
          + " max %7.2f ms  receiving %4.0f us %5.1f KB/event%s%s  %s%s%n", rep + 1, c,
          s.kind.label, r.rate(), r.latencies().getValueAtPercentile(50) / 1e6,
          r.latencies().getValueAtPercentile(99) / 1e6, r.latencies().getMaxValue() / 1e6, cpuUs,
          allocKb, s.tally() == null ? "" : String.format(Locale.ROOT, "  workers %4.0f us/handled,"
              + " %6.0f handled/s, backlog %d drained at %s/s", inboxUs,
              handled / r.seconds(), left, Double.isNaN(drainPerSec) ? "-"
                  : String.format(Locale.ROOT, "%.0f", drainPerSec)),
          db >= 0 ? String.format(Locale.ROOT, "  database %4.0f us", db / 1e3 / ok) : "",
          cost.describeCompiler(), busy ? "  REFUSED (compiler busy), re-measuring" : "");
      if (busy) {
        refused++;
        continue;
      }
      failures += r.failed();
      noteError(s, r);
      String k = ThroughputScenario.key(s.kind.label, c);
      put(rates, k, rep, r.rate());
      put(cpu, k, rep, cpuUs);
      put(alloc, k, rep, allocKb);
      put(p50, k, rep, r.latencies().getValueAtPercentile(50) / 1e6);
      put(p99, k, rep, r.latencies().getValueAtPercentile(99) / 1e6);
      put(max, k, rep, r.latencies().getMaxValue() / 1e6);
      if (s.tally() != null) {
        put(inboxCpu, k, rep, inboxUs);
        put(inboxAlloc, k, rep, inboxKb);
        put(creates, k, rep, w.receivingCreates()
            / (double) Math.max(1, s.sender.accepted() - accepted0));
        put(updates, k, rep, w.inboxUpdates() / (double) Math.max(1, handled + left));
        put(handledRate, k, rep, handled / r.seconds());
        put(backlog, k, rep, (double) left);
        put(drainRate, k, rep, drainPerSec);
        put(drainCpu, k, rep, drainUs);
        put(drainAlloc, k, rep, drainKb);
      }
      if (db >= 0) {
        put(dbCpu, k, rep, db / 1e3 / ok);
      }
      return;
    }
    System.out.printf(Locale.ROOT, "    rep %d c=%d %s: compiler busy in %d windows, no figure%n",
        rep + 1, c, s.kind.label, TRIES);
  }

  /** Keeps the first exception or other answer than {@code 200 accepted} for the notes. */
  private void noteError(Segment s, Load.Result r) {
    if (firstError != null) {
      return;
    }
    if (r.firstError() != null) {
      firstError = s.kind.label + ": " + r.firstError();
    } else if (r.failed() > 0 && s.sender.firstOtherAnswer() != null) {
      firstError = s.kind.label + ": answered " + s.sender.firstOtherAnswer();
    }
  }

  /**
   * Adds up, for a drained segment, what the inbox promises: every event answered {@code 200
   * accepted} was stored as new, and handled, once.
   */
  private void check(Segment s, Map<Kind, long[]> into) {
    InboxTally t = s.tally();
    if (t == null) {
      return;
    }
    long[] sums = into.computeIfAbsent(s.kind, x -> new long[5]);
    sums[0] += s.sender.accepted();
    sums[1] += t.accepted();
    sums[2] += t.distinctRun();
    sums[3] += t.runMoreThanOnce();
    sums[4] += t.troubles();
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

  private List<Double> versusBaseline(Map<String, List<Double>> from, Kind kind, int c,
      boolean ratio) {
    List<Double> a = from.get(ThroughputScenario.key(kind.label, c));
    List<Double> b = from.get(ThroughputScenario.key(Kind.BASELINE.label, c));
    return ratio ? ThroughputScenario.ratios(a, b) : ThroughputScenario.differences(a, b);
  }

  private void report(List<Double> fsync) {
    for (int c : settings.concurrencies()) {
      for (Kind k : kinds) {
        results.add(SECTION, k.label + ": " + (k == Kind.BASELINE ? "verified events answered 200"
            : "events accepted") + "/s, c=" + c, "events/s", samples(rates, k, c), null);
      }
      for (Kind k : kinds) {
        if (k == Kind.BASELINE) {
          continue;
        }
        results.add(SECTION, k.label + " / verify only, c=" + c, "x",
            versusBaseline(rates, k, c, true), null);
        results.add(SECTION, k.label + ": handled/s while accepting, c=" + c, "events/s",
            samples(handledRate, k, c), null);
        results.add(SECTION, k.label + ": backlog when the load stopped, c=" + c, "events",
            samples(backlog, k, c), null);
        results.add(SECTION, k.label + ": drain after the load stopped, c=" + c, "events/s",
            samples(drainRate, k, c), "backlogs under " + MIN_BACKLOG + " not timed");
        results.add(SECTION, k.label + ": writes before the 2xx per accepted event in the"
            + " windows, c=" + c, "writes", samples(creates, k, c), null);
        results.add(SECTION, k.label + ": workers' writes per event handled in and after the"
            + " windows, c=" + c, "writes", samples(updates, k, c), null);
      }
    }
    reportChecks(SECTION, checks);
    for (int c : settings.concurrencies()) {
      for (Kind k : kinds) {
        String who = k == Kind.BASELINE ? "per verified request" : "per accepted event";
        results.add(COST, k.label + ": receiving threads' CPU " + who + ", c=" + c, "us",
            samples(cpu, k, c), null);
        results.add(COST, k.label + ": receiving threads' allocation " + who + ", c=" + c, "KB",
            samples(alloc, k, c), null);
      }
      for (Kind k : kinds) {
        if (k == Kind.BASELINE) {
          continue;
        }
        results.add(COST, k.label + ": receiving CPU / verify only's, c=" + c, "x",
            versusBaseline(cpu, k, c, true), null);
        results.add(COST, k.label + ": receiving allocation - verify only's, c=" + c, "KB",
            versusBaseline(alloc, k, c, false), null);
        results.add(COST, k.label + ": inbox threads' CPU per handled event, c=" + c, "us",
            samples(inboxCpu, k, c), null);
        results.add(COST, k.label + ": inbox threads' allocation per handled event, c=" + c, "KB",
            samples(inboxAlloc, k, c), null);
        results.add(COST, k.label + ": server threads' CPU per event drained after the load, c="
            + c, "us", samples(drainCpu, k, c), null);
        results.add(COST, k.label + ": server threads' allocation per event drained after the"
            + " load, c=" + c, "KB", samples(drainAlloc, k, c), null);
      }
      if (kinds.contains(Kind.POSTGRES)) {
        results.add(COST, Kind.POSTGRES.label + ": database processes' CPU per accepted event,"
            + " c=" + c, "us", samples(dbCpu, Kind.POSTGRES, c), null);
      }
    }
    for (int c : settings.concurrencies()) {
      for (Kind k : kinds) {
        results.add(LATENCY, k.label + ": p50 before the 2xx, c=" + c, "ms",
            samples(p50, k, c), null);
        results.add(LATENCY, k.label + ": p99 before the 2xx, c=" + c, "ms",
            samples(p99, k, c), null);
        results.add(LATENCY, k.label + ": max before the 2xx, c=" + c, "ms",
            samples(max, k, c), null);
      }
      for (Kind k : kinds) {
        if (k == Kind.BASELINE) {
          continue;
        }
        List<Double> added50 = versusBaseline(p50, k, c, false);
        results.add(LATENCY, k.label + ": added p50, c=" + c, "ms", added50, null);
        results.add(LATENCY, k.label + ": added p99, c=" + c, "ms", versusBaseline(p99, k, c,
            false), null);
        results.add(LATENCY, k.label + ": added max, c=" + c, "ms", versusBaseline(max, k, c,
            false), null);
        if (c == 1 && !fsync.isEmpty()) {
          results.add(LATENCY, k.label + ": added p50 / one raw fsync, c=1", "x",
              ThroughputScenario.ratios(added50, fsync), null);
        }
      }
    }
    if (!fsync.isEmpty()) {
      results.add(LATENCY, "one raw append + force(false) p50", "ms", fsync, null);
    }
  }

  /** The check rows of {@code sums}: every event answered {@code 200 accepted} handled once. */
  private void reportChecks(String section, Map<Kind, long[]> sums) {
    sums.forEach((k, n) -> {
      results.add(section, k.label + ": events answered 200 accepted, all drained segments",
          "events", List.of((double) n[0]), null);
      results.add(section, k.label + ": handled once / answered 200 accepted", "x",
          List.of(n[0] == 0 ? Double.NaN : (double) n[2] / n[0]), "= 1", v -> v == 1.0,
          n[1] + " stored as new");
      results.add(section, k.label + ": handled more than once, failed, taken over or fenced",
          "events", List.of((double) (n[3] + n[4])), "= 0", v -> v == 0.0, null);
    });
  }

  private void notes(Map<String, Double> settleSeconds, String pgNote) {
    StringBuilder settled = new StringBuilder();
    settleSeconds.forEach((label, secs) -> settled.append(settled.length() == 0 ? "" : ", ")
        .append(label).append(String.format(Locale.ROOT, " %.0f s", secs)));
    results.note(SECTION, "Each figure: events answered 200 per second in a "
        + settings.e2eWindow().toMillis() + " ms window after " + settings.e2eWarmup().toMillis()
        + " ms of re-warming on a fresh store and a drain of what that left (a new MapDB or"
        + " SQLite store in a scratch dir, default options; the PostgreSQL table truncated),"
        + " subjects interleaved (rotated order) within each repetition. Events: Standard"
        + " Webhooks v1, a ~" + Payloads.event(0).length() + "-byte JSON body, a fresh"
        + " webhook-id, the current timestamp and one v1 HMAC-SHA256 signature, posted by OkHttp"
        + " from the same JVM. The endpoint: embedded Tomcat 11 on loopback (HTTP/1.1, default"
        + " thread pool, keep-alive without a request limit); verify only, a servlet reading the"
        + " body, verifying with StandardWebhooks and answering 200 with nothing stored; inbox,"
        + " WebhookServlet + WebhookReceiver + Inbox with its defaults (4 workers, 60 s lease, 1 s"
        + " poll), a handler that notes the message id. After each window the workers drain the"
        + " backlog; its size over the time it took is the drain rate. "
        + (pgNote == null ? "PostgreSQL: client-postgres's test server (" + pg.settings()
            + "), its processes on the same cores, PostgresIntentStore on a HikariCP pool of "
            + POOL + "." : pgNote) + " JIT settled before measuring (" + settled
        + "); windows with compiler CPU above " + Math.round(settings.jitQuiet() * 100)
        + " % of the process's were refused and re-run: " + refused + " refused. Failed"
        + " requests: " + failures + (firstError == null ? "." : "; first: " + firstError + ".")
        + " Writes are counted by a forwarding store, by the thread that makes them: the"
        + " receiving side's (before the 2xx) and the inbox threads'.");
    results.note(COST, "Receiving threads: every thread started with the endpoint but the"
        + " inbox's, the load's and OkHttp's (Tomcat's acceptor, poller and workers, the store's"
        + " own threads such as MapDB's applier and PostgreSQL's lease keeper), their CPU"
        + " (ThreadMXBean#getThreadCpuTime) and allocation over the window / events answered."
        + " A group commit is led by whichever caller arrives first, so a commit of workers'"
        + " writes may be paid by a receiving thread and the other way round. Inbox threads:"
        + " the dispatcher and the 4 workers, over the events handled in the window. Drained"
        + " after the load: every server thread (the workers, the dispatcher, the store's own;"
        + " Tomcat's are idle) over the backlog, when it held at least " + MIN_BACKLOG
        + " events: what handling one event costs. GC and JIT threads are in none of these.");
    results.note(LATENCY, "The time a sender waits from sending an event until its 200 is"
        + " read, percentiles from an HdrHistogram per repetition, at each concurrency;"
        + " 'added' is inbox minus verify only of the same repetition, at c=1 also in units of"
        + " the p50 of one raw 128-byte append + force(false) measured just before.");
  }

  // ---- the accept rate on a store that already holds handled messages ----------------------

  private void scale(OkHttpClient http, int c) {
    for (Kind kind : new Kind[] {Kind.MAPDB, Kind.SQLITE}) {
      Engine engine = kind == Kind.MAPDB ? Engine.MAPDB : Engine.SQLITE;
      Path dir = TempDirs.create("inbox-filled");
      try {
        Instant now = Instant.now();
        long t0 = System.nanoTime();
        int made = ParallelFill.fill(engine, dir, messages, FILL_THREADS, FILL_BUDGET,
            i -> handled(i, now));
        double fillSecs = (System.nanoTime() - t0) / 1e9;
        long bytes = TempDirs.size(dir);
        System.out.printf(Locale.ROOT, "    %s: %d handled messages filled in %.0f s, %.0f MB%n",
            kind.label, made, fillSecs, bytes / 1e6);
        String what = kind.label + ", " + made + " handled";
        results.add(SCALE, what + ": messages in the store", "messages", List.of((double) made),
            made < messages ? "asked for " + messages + "; the fill stopped after "
                + FILL_BUDGET.toMinutes() + " min" : null);
        results.add(SCALE, what + ": disk per message", "bytes",
            List.of((double) bytes / made), "every store file");
        compare(kind, dir, http, c, what);
      } finally {
        TempDirs.delete(dir);
      }
    }
    reportChecks(SCALE, scaleChecks);
    results.note(SCALE, "Fill: " + FILL_THREADS + " threads insert handled inbox messages (the"
        + " records an inbox leaves: the same ~" + Payloads.event(0).length() + "-byte event,"
        + " source standard, state HANDLED, retention 3 days) straight through the store, one"
        + " insert each; the store is closed and reopened by the receiver. Accepting: c=" + c
        + ", " + settings.scaleWindow().toMillis() + " ms windows (long enough to hold a"
        + " checkpoint of the filled store) after " + settings.e2eWarmup().toMillis() + " ms of"
        + " warming and a drain, the filled and a fresh store interleaved in each of " + scaleReps()
        + " repetitions, no JIT"
        + " settle check; after each window the workers drain the backlog. Failed requests: "
        + scaleFailures + (scaleFailures == 0 || firstError == null ? "." : "; first of the run: "
            + firstError + "."));
  }

  /**
   * Repetitions of the filled-store comparison: at most {@value #SCALE_REPS}, since each segment
   * waits for its workers to drain a 10 s burst (tens of thousands of events at c=64).
   */
  private int scaleReps() {
    return Math.min(SCALE_REPS, settings.reps());
  }

  /** Handled message {@code i} as the inbox leaves one, for the fill. */
  private static IntentRecord handled(int i, Instant now) {
    String id = "msg_filled_" + i;
    byte[] payload = Payloads.event(i).getBytes(StandardCharsets.UTF_8);
    return InboxRecords.toRecord(InboxMessage.builder()
        .id(InboxRecords.idOf(WebhookServer.SOURCE, id))
        .messageId(id)
        .type("checkout.completed")
        .payload(payload, "application/json")
        .fingerprint(InboxRecords.fingerprintOf(payload))
        .state(InboxState.HANDLED)
        .revision(0)
        .leaseOwner("inbox-filled")
        .receivedAt(now)
        .updatedAt(now)
        .expiresAt(now.plus(Inbox.DEFAULT_RETENTION))
        .build());
  }

  /** The filled store beside a fresh one, interleaved: rates, waits and drains per repetition. */
  private void compare(Kind kind, Path dir, OkHttpClient http, int c, String what) {
    List<Double> filledRate = new ArrayList<>();
    List<Double> freshRate = new ArrayList<>();
    List<Double> filledP99 = new ArrayList<>();
    List<Double> freshP99 = new ArrayList<>();
    List<Double> filledMax = new ArrayList<>();
    List<Double> freshMax = new ArrayList<>();
    List<Double> filledDrain = new ArrayList<>();
    List<Double> freshDrain = new ArrayList<>();
    for (int rep = 0; rep < scaleReps(); rep++) {
      for (int k = 0; k < 2; k++) {
        boolean filled = (k + rep) % 2 == 0;
        try (Segment s = new Segment(kind, http, filled ? dir : null)) {
          warm(s, c);
          long handled0 = s.tally().handled();
          Load.Result r = Load.run(s.op, c, settings.scaleWindow(), true);
          long inWindow = s.tally().handled() - handled0;
          long left = s.tally().accepted() - s.tally().handled();
          double drainSecs = drain(s);
          check(s, scaleChecks);
          scaleFailures += r.failed();
          noteError(s, r);
          double drainPerSec = left >= MIN_BACKLOG && drainSecs > 0 ? left / drainSecs
              : Double.NaN;
          (filled ? filledRate : freshRate).add(r.rate());
          (filled ? filledP99 : freshP99).add(r.latencies().getValueAtPercentile(99) / 1e6);
          (filled ? filledMax : freshMax).add(r.latencies().getMaxValue() / 1e6);
          (filled ? filledDrain : freshDrain).add(drainPerSec);
          System.out.printf(Locale.ROOT, "    rep %d %-16s %-6s c=%d %7.0f accepted/s, p99 %.1f"
              + " ms, max %.0f ms, %.0f handled/s while accepting, backlog %d drained at %.0f/s,"
              + " %d failed%n", rep + 1, kind.label, filled ? "filled" : "fresh", c, r.rate(),
              r.latencies().getValueAtPercentile(99) / 1e6, r.latencies().getMaxValue() / 1e6,
              inWindow / r.seconds(), left, drainPerSec,
              r.failed());
        }
      }
    }
    results.add(SCALE, what + ": events accepted/s, c=" + c, "events/s", filledRate, null);
    results.add(SCALE, kind.label + ", fresh store: events accepted/s, c=" + c, "events/s",
        freshRate, null);
    results.add(SCALE, what + " / fresh store, c=" + c, "x",
        ThroughputScenario.ratios(filledRate, freshRate), null);
    results.add(SCALE, what + ": p99 before the 2xx, c=" + c, "ms", filledP99, null);
    results.add(SCALE, kind.label + ", fresh store: p99 before the 2xx, c=" + c, "ms", freshP99,
        null);
    results.add(SCALE, what + ": max before the 2xx, c=" + c, "ms", filledMax, null);
    results.add(SCALE, kind.label + ", fresh store: max before the 2xx, c=" + c, "ms", freshMax,
        null);
    results.add(SCALE, what + ": drain after the load stopped, c=" + c, "events/s",
        ThroughputScenario.present(filledDrain), null);
    results.add(SCALE, kind.label + ", fresh store: drain after the load stopped, c=" + c,
        "events/s", ThroughputScenario.present(freshDrain), null);
    double median = Stats.median(ThroughputScenario.ratios(filledRate, freshRate));
    System.out.printf(Locale.ROOT, "    %s: filled / fresh %.2fx%n", what, median);
  }
}
