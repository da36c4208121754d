package dev.oncely.benchmarks;

import dev.oncely.benchmarks.internal.CountingStore;
import dev.oncely.benchmarks.internal.Engine;
import dev.oncely.benchmarks.internal.Http;
import dev.oncely.benchmarks.internal.Load;
import dev.oncely.benchmarks.internal.Payloads;
import dev.oncely.benchmarks.internal.Records;
import dev.oncely.benchmarks.internal.TempDirs;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentStore;
import dev.oncely.client.event.IntentListener;
import dev.oncely.examples.server.ReferenceServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import okhttp3.OkHttpClient;
import org.HdrHistogram.Histogram;

/**
 * Durable creates/s of each engine at concurrency 1 and 64 against the disk's own
 * floor (a raw {@link FileChannel} append + {@code force(false)} loop), interleaved per repetition;
 * and how many durable writes the SDK makes before an intent's first byte is sent.
 */
final class CommitScenario {
  static final String SECTION = "commit";
  private static final String RAW = "raw FileChannel append+force, c=1";

  private final Settings settings;
  private final Results results;

  CommitScenario(Settings settings, Results results) {
    this.settings = settings;
    this.results = results;
  }

  void run() {
    int high = settings.commitConcurrency();
    List<String> order = new ArrayList<>();
    order.add(RAW);
    for (Engine e : new Engine[] {Engine.MAPDB, Engine.SQLITE}) {
      order.add(label(e, 1));
      order.add(label(e, high));
    }
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    for (int rep = 0; rep < settings.reps(); rep++) {
      for (int k = 0; k < order.size(); k++) {
        String which = order.get((k + rep) % order.size());
        double rate = which.equals(RAW) ? rawForce(settings.commitWindow()) : creates(which, high);
        rates.computeIfAbsent(which, x -> new ArrayList<>()).add(rate);
        System.out.printf("    rep %d %-40s %9.0f /s%n", rep + 1, which, rate);
      }
    }
    List<Double> raw = rates.get(RAW);
    results.add(SECTION, RAW, "fsyncs/s", raw, null);
    for (Engine e : new Engine[] {Engine.MAPDB, Engine.SQLITE}) {
      List<Double> one = rates.get(label(e, 1));
      List<Double> many = rates.get(label(e, high));
      results.add(SECTION, label(e, 1), "creates/s", one, null);
      results.add(SECTION, label(e, high), "creates/s", many, null);
      results.add(SECTION, e.label() + " c=1 / raw fsync", "x", ThroughputScenario.ratios(one, raw),
          ">= 0.7", v -> v >= 0.7, null);
      results.add(SECTION, e.label() + " c=" + high + " / c=1 (group commit)", "x",
          ThroughputScenario.ratios(many, one), ">= 5", v -> v >= 5, null);
    }
    writesBeforeSend();
    results.note(SECTION, "Creates go straight to IntentStore.create (no HTTP), one fresh store"
        + " per segment, " + settings.commitWindow().toMillis() + " ms each; the raw loop appends"
        + " 128 bytes and calls force(false) on one thread. 'Durable writes before first send'"
        + " counts create + compareAndSet calls the SDK made for an intent when its request reached"
        + " the network (an OkHttp network interceptor reads the count).");
  }

  private static String label(Engine e, int c) {
    return e.label() + " create, c=" + c;
  }

  private double creates(String which, int high) {
    Engine engine = which.startsWith(Engine.MAPDB.label()) ? Engine.MAPDB : Engine.SQLITE;
    int c = which.endsWith("c=1") ? 1 : high;
    Path dir = TempDirs.create("commit");
    try (IntentStore store = engine.open(dir)) {
      Load.Result r = Load.run(seq -> {
        store.create(Records.fresh(seq));
        return true;
      }, c, settings.commitWindow(), false);
      if (r.firstError() != null) {
        throw new IllegalStateException(which + " failed", r.firstError());
      }
      return r.rate();
    } finally {
      TempDirs.delete(dir);
    }
  }

  static double rawForce(Duration window) {
    return rawForceLoop(window).rate();
  }

  /** The latencies of one raw 128-byte append + {@code force(false)} over {@code window}. */
  static Histogram rawForceLatency(Duration window) {
    return rawForceLoop(window).latencies();
  }

  private static Load.Result rawForceLoop(Duration window) {
    Path dir = TempDirs.create("raw");
    try (FileChannel ch = FileChannel.open(dir.resolve("log"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      ByteBuffer record = ByteBuffer.allocate(128);
      return Load.run(seq -> {
        record.clear();
        ch.write(record);
        ch.force(false);
        return true;
      }, 1, window, true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      TempDirs.delete(dir);
    }
  }

  private void writesBeforeSend() {
    int intents = Math.max(5, settings.reps() * 4);
    OkHttpClient base = Http.client();
    for (Engine engine : new Engine[] {Engine.MAPDB, Engine.SQLITE}) {
      Path dir = TempDirs.create("count");
      List<Double> before = new ArrayList<>();
      List<Double> total = new ArrayList<>();
      try (ReferenceServer server = ReferenceServer.builder().build().start();
          CountingStore store = new CountingStore(engine.open(dir))) {
        long[] seenAtSend = new long[1];
        OkHttpClient http = base.newBuilder().addNetworkInterceptor(chain -> {
          seenAtSend[0] = store.writes();
          return chain.proceed(chain.request());
        }).build();
        try (IdempotentClient client = IdempotentClient.builder().okHttpClient(http).store(store)
            .listener(IntentListener.NONE).build()) {
          for (int i = 0; i < intents; i++) {
            long start = store.writes();
            IntentOutcome o = client.execute(IntentSpec.builder().operation("create-payment")
                .scope("bench").post(server.baseUrl() + "payments")
                .jsonBody(Payloads.payment(i)).build());
            if (!(o instanceof IntentOutcome.Completed)) {
              throw new IllegalStateException("intent did not complete: " + o);
            }
            before.add((double) (seenAtSend[0] - start));
            total.add((double) (store.writes() - start));
          }
        }
      } finally {
        TempDirs.delete(dir);
      }
      results.add(SECTION, "SDK + " + engine.label() + " durable writes before first send", "writes",
          before, "<= 1", v -> v <= 1, "per intent, " + intents + " intents");
      results.add(SECTION, "SDK + " + engine.label() + " durable writes per completed intent",
          "writes", total, null, null, "per intent");
    }
    base.connectionPool().evictAll();
  }
}
