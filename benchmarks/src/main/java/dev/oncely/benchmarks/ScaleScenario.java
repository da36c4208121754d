package dev.oncely.benchmarks;

import dev.oncely.benchmarks.internal.Engine;
import dev.oncely.benchmarks.internal.Http;
import dev.oncely.benchmarks.internal.Load;
import dev.oncely.benchmarks.internal.Payloads;
import dev.oncely.benchmarks.internal.Records;
import dev.oncely.benchmarks.internal.Subject;
import dev.oncely.benchmarks.internal.TempDirs;
import dev.oncely.benchmarks.internal.TinyServer;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import okhttp3.OkHttpClient;

/**
 * The durable engines at production volume: a store pre-filled with {@link Settings#scaleIntents()}
 * finished intents (~750-byte bodies, each created and then completed, as the SDK writes them)
 * runs the end-to-end throughput load beside a fresh store in the same run. Reports the throughput
 * ratio, the longest caller wait of each, and, at 100,000 and at the full size, the time of the
 * close that ends a fill (its final checkpoint), the bytes on disk per finished intent, and
 * reopen + list-unfinished after that clean close, and again with the clean-close marker removed
 * (the full verification an open runs after a crash).
 */
final class ScaleScenario {
  static final String SECTION = "scale";
  private static final int FILL_THREADS = 64;
  private static final int STEP = 100_000;

  private final Settings settings;
  private final Results results;

  ScaleScenario(Settings settings, Results results) {
    this.settings = settings;
    this.results = results;
  }

  void run() {
    OkHttpClient http = Http.client();
    int concurrency = settings.concurrencies().stream().max(Integer::compare).orElse(1);
    try (TinyServer server = TinyServer.start(settings.serverThreads())) {
      String url = server.baseUrl() + "payments";
      for (Engine engine : new Engine[] {Engine.MAPDB, Engine.SQLITE}) {
        Path dir = TempDirs.create("scale");
        try {
          fillInSteps(engine, dir);
          compare(engine, dir, http, url, concurrency);
        } finally {
          TempDirs.delete(dir);
        }
      }
    } finally {
      http.connectionPool().evictAll();
    }
    results.note(SECTION, "Fill: " + FILL_THREADS + " threads create and complete finished"
        + " intents (~750-byte body, 201 answer) straight through the store; each fill step ends"
        + " with a clean close (timed: the final checkpoint) and a reopen + listUnfinishedIds"
        + " (timed), then one more with the clean-close marker deleted (the full verification)."
        + " Throughput: c=" + concurrency + ", " + settings.scaleWindow().toMillis()
        + " ms windows (long enough to hold a checkpoint of the filled store) after "
        + settings.e2eWarmup().toMillis() + " ms of warming, the filled"
        + " and a fresh store interleaved per repetition, default listener and options;"
        + " 'longest wait' is the slowest intent of the window.");
  }

  /** Fills to 100,000 (when the target is larger) and then to the target, measuring each. */
  private void fillInSteps(Engine engine, Path dir) {
    TreeSet<Integer> marks = new TreeSet<>();
    int target = settings.scaleIntents();
    if (target > STEP) {
      marks.add(STEP);
    }
    marks.add(target);
    int made = 0;
    for (int mark : marks) {
      long t0 = System.nanoTime();
      IntentStore store = engine.open(dir);
      fill(store, made, mark);
      double fillSeconds = (System.nanoTime() - t0) / 1e9;
      long c0 = System.nanoTime();
      store.close();
      double closeMs = (System.nanoTime() - c0) / 1e6;
      made = mark;
      long bytes = TempDirs.size(dir);
      double listMs = reopenAndList(engine, dir);
      TempDirs.deleteCleanCloseMarkers(dir);
      double fullMs = reopenAndList(engine, dir);
      String what = engine.label() + ", " + mark + " finished";
      results.add(SECTION, what + ": close (final checkpoint)", "ms", List.of(closeMs), null);
      results.add(SECTION, what + ": disk per finished intent", "bytes",
          List.of((double) bytes / mark), "<= 1536", v -> v <= 1536, "every store file");
      results.add(SECTION, what + ": reopen + listUnfinishedIds", "ms", List.of(listMs),
          "< 1000", v -> v < 1000, null);
      results.add(SECTION, what + ": reopen + listUnfinishedIds, marker removed", "ms",
          List.of(fullMs), "the full verification, as after a crash");
      System.out.printf(Locale.ROOT, "    %s: filled in %.0f s, %.0f MB%n", what, fillSeconds,
          bytes / 1e6);
    }
  }

  /** Reopens the store in {@code dir}, lists what is unfinished (none), closes; the ms taken. */
  private static double reopenAndList(Engine engine, Path dir) {
    long o0 = System.nanoTime();
    int unfinished;
    double listMs;
    try (IntentStore reopened = engine.open(dir)) {
      unfinished = reopened.listUnfinishedIds().size();
      listMs = (System.nanoTime() - o0) / 1e6;
    }
    if (unfinished != 0) {
      throw new IllegalStateException(engine.label() + " listed " + unfinished
          + " unfinished intents after a fill of finished ones");
    }
    return listMs;
  }

  /** Creates and completes intents {@code from} to {@code to} (exclusive) in {@code store}. */
  private static void fill(IntentStore store, int from, int to) {
    AtomicLong next = new AtomicLong(from);
    AtomicReference<Throwable> error = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < FILL_THREADS; t++) {
      Thread worker = new Thread(() -> {
        long i;
        while (error.get() == null && (i = next.getAndIncrement()) < to) {
          try {
            IntentRecord created = Records.fresh(i, Payloads.order(i));
            store.create(created);
            if (!store.compareAndSet(created, Records.completed(created, i))) {
              throw new IllegalStateException("completing " + created.id() + " lost a race");
            }
          } catch (RuntimeException e) {
            error.compareAndSet(null, e);
          }
        }
      }, "bench-scale-fill-" + t);
      worker.start();
      threads.add(worker);
    }
    try {
      for (Thread t : threads) {
        t.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while filling", e);
    }
    if (error.get() != null) {
      throw new IllegalStateException("filling failed", error.get());
    }
  }

  /** The filled store beside a fresh one, interleaved: rates and longest waits per repetition. */
  private void compare(Engine engine, Path dir, OkHttpClient http, String url, int c) {
    List<Double> filledRate = new ArrayList<>();
    List<Double> freshRate = new ArrayList<>();
    List<Double> filledWait = new ArrayList<>();
    List<Double> freshWait = new ArrayList<>();
    for (int rep = 0; rep < settings.reps(); rep++) {
      for (int k = 0; k < 2; k++) {
        boolean filled = (k + rep) % 2 == 0;
        try (Subject s = filled ? Subject.sdkIn(engine, dir, http, url, Payloads::order)
            : Subject.sdk(engine, http, url, null, Payloads::order)) {
          Load.run(s.op(), c, settings.e2eWarmup(), false);
          Load.Result r = Load.run(s.op(), c, settings.scaleWindow(), true);
          double waitMs = r.latencies().getMaxValue() / 1e6;
          (filled ? filledRate : freshRate).add(r.rate());
          (filled ? filledWait : freshWait).add(waitMs);
          System.out.printf(Locale.ROOT, "    rep %d %-8s %-6s c=%d %8.0f intents/s, longest"
              + " wait %.0f ms, %d failed%n", rep + 1, engine.label(),
              filled ? "filled" : "fresh", c, r.rate(), waitMs, r.failed());
        }
      }
    }
    String n = engine.label() + ", " + settings.scaleIntents() + " finished";
    results.add(SECTION, n + ": intents/s, c=" + c, "intents/s", filledRate, null);
    results.add(SECTION, engine.label() + ", fresh store: intents/s, c=" + c, "intents/s",
        freshRate, null);
    results.add(SECTION, n + " / fresh store, c=" + c, "x",
        ThroughputScenario.ratios(filledRate, freshRate), ">= 0.9", v -> v >= 0.9, null);
    results.add(SECTION, n + ": longest wait, c=" + c, "ms", filledWait, null);
    results.add(SECTION, engine.label() + ", fresh store: longest wait, c=" + c, "ms", freshWait,
        null);
    results.add(SECTION, n + ": longest wait / fresh store's, c=" + c, "x",
        ThroughputScenario.ratios(filledWait, freshWait), "<= 2", v -> v <= 2, null);
  }
}
