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
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.postgres.BenchPostgres;
import dev.oncely.postgres.PostgresIntentStore;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.concurrent.atomic.AtomicReference;
import okhttp3.OkHttpClient;

/**
 * The durable engines at production volume: a store pre-filled with {@link Settings#scaleIntents()}
 * finished intents (~750-byte bodies, each created and then completed with its request dropped, as
 * the SDK writes them)
 * runs the end-to-end throughput load beside a fresh store in the same run. Reports the throughput
 * ratio, the longest caller wait of each, and, at 100,000 and at the full size, the time of the
 * close that ends a fill (its final checkpoint), the bytes on disk per finished intent, and
 * reopen + list-unfinished after that clean close, and again with the clean-close marker removed
 * (the full verification an open runs after a crash).
 *
 * <p>The bytes per finished intent of the other engines too: a {@link PostgresIntentStore} on a
 * server of its own filled with the same intents (for at most {@link #PG_FILL_LIMIT} by default),
 * its tables' {@code pg_total_relation_size} as filled and after {@code VACUUM FULL}; and the
 * Android store by arithmetic (it keeps each record in a row of the same SQLite schema as the JVM
 * SQLite engine, and a finished row carries nothing but the record and its index columns in
 * either): the SQLite engine's measured bytes, plus the sealing overhead per record when the
 * Android store encrypts ({@link RecordCodec} with and without a {@link StoreEncryption},
 * measured on the same records).
 */
final class ScaleScenario {
  static final String SECTION = "scale";
  private static final int FILL_THREADS = 64;
  private static final int STEP = 100_000;
  /** The PostgreSQL fill's threads, one per pooled connection. */
  private static final int PG_FILL_THREADS = 16;
  /** The longest the PostgreSQL fill runs by default; its figures are at the size it reached. */
  static final Duration PG_FILL_LIMIT = Duration.ofSeconds(240);
  /** Finished records encoded with and without sealing to weigh the sealing overhead. */
  private static final int SEAL_SAMPLE = 1000;

  private final Settings settings;
  private final Results results;
  private final boolean postgres;
  private final Duration pgFillLimit;

  /**
   * The scenario; {@code postgres} false leaves the PostgreSQL fill out, which otherwise runs for
   * at most {@code pgFillLimit}.
   */
  ScaleScenario(Settings settings, Results results, boolean postgres, Duration pgFillLimit) {
    this.settings = settings;
    this.results = results;
    this.postgres = postgres;
    this.pgFillLimit = pgFillLimit;
  }

  void run() {
    OkHttpClient http = Http.client();
    int concurrency = settings.concurrencies().stream().max(Integer::compare).orElse(1);
    Map<Integer, Double> sqliteBytes = Map.of();
    try (TinyServer server = TinyServer.start(settings.serverThreads())) {
      String url = server.baseUrl() + "payments";
      for (Engine engine : new Engine[] {Engine.MAPDB, Engine.SQLITE}) {
        Path dir = TempDirs.create("scale");
        try {
          Map<Integer, Double> bytes = fillInSteps(engine, dir);
          if (engine == Engine.SQLITE) {
            sqliteBytes = bytes;
          }
          compare(engine, dir, http, url, concurrency);
        } finally {
          TempDirs.delete(dir);
        }
      }
    } finally {
      http.connectionPool().evictAll();
    }
    results.note(SECTION, "Fill: " + FILL_THREADS + " threads create and complete finished"
        + " intents (~750-byte body, 201 answer) straight through the store, each completion"
        + " dropping the request as the engine's does (body and headers gone, a SHA-256 of the"
        + " body kept); each fill step ends"
        + " with a clean close (timed: the final checkpoint) and a reopen + listUnfinishedIds"
        + " (timed), then one more with the clean-close marker deleted (the full verification)."
        + " Throughput: c=" + concurrency + ", " + settings.scaleWindow().toMillis()
        + " ms windows (long enough to hold a checkpoint of the filled store) after "
        + settings.e2eWarmup().toMillis() + " ms of warming, the filled"
        + " and a fresh store interleaved per repetition, default listener and options;"
        + " 'longest wait' is the slowest intent of the window.");
    if (postgres) {
      postgres();
    } else {
      results.note(SECTION, "PostgreSQL: not measured (--no-postgres).");
    }
    android(sqliteBytes);
  }

  /** 100,000 (when the target is larger) and the target: the sizes each fill is measured at. */
  private TreeSet<Integer> marks() {
    TreeSet<Integer> marks = new TreeSet<>();
    int target = settings.scaleIntents();
    if (target > STEP) {
      marks.add(STEP);
    }
    marks.add(target);
    return marks;
  }

  /**
   * Fills to 100,000 (when the target is larger) and then to the target, measuring each; returns
   * the bytes on disk per finished intent at each size.
   */
  private Map<Integer, Double> fillInSteps(Engine engine, Path dir) {
    Map<Integer, Double> perIntent = new LinkedHashMap<>();
    int made = 0;
    for (int mark : marks()) {
      long t0 = System.nanoTime();
      IntentStore store = engine.open(dir);
      fill(store, made, mark, FILL_THREADS, () -> false);
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
          List.of((double) bytes / mark), "<= 1024", v -> v <= 1024, "every store file");
      results.add(SECTION, what + ": reopen + listUnfinishedIds", "ms", List.of(listMs),
          "< 100", v -> v < 100, null);
      results.add(SECTION, what + ": reopen + listUnfinishedIds, marker removed", "ms",
          List.of(fullMs), "the full verification, as after a crash");
      System.out.printf(Locale.ROOT, "    %s: filled in %.0f s, %.0f MB%n", what, fillSeconds,
          bytes / 1e6);
      perIntent.put(mark, (double) bytes / mark);
    }
    return perIntent;
  }

  /**
   * A {@link PostgresIntentStore} on a server of its own filled with the same finished intents, to
   * 100,000 and the target or as far as its time limit allows: its tables' bytes per
   * finished intent as filled (dead versions the completions left included, unless autovacuum
   * reclaimed them: the ceiling) at each size, and after {@code VACUUM FULL} at the last (the live
   * rows alone: the floor).
   */
  private void postgres() {
    BenchPostgres pg;
    try {
      pg = BenchPostgres.start(PG_FILL_THREADS, false);
    } catch (IllegalStateException e) {
      String why = "PostgreSQL: not measured, the server did not start: " + e.getMessage();
      System.out.println("    " + why);
      results.note(SECTION, why);
      return;
    }
    try (pg) {
      String version = pg.settings();
      long deadline = System.nanoTime() + pgFillLimit.toNanos();
      long t0 = System.nanoTime();
      int made = 0;
      boolean stopped = false;
      try (PostgresIntentStore store = PostgresIntentStore.builder(pg.pool()).build()) {
        for (int mark : marks()) {
          made += fill(store, made, mark, PG_FILL_THREADS,
              () -> System.nanoTime() - deadline > 0);
          stopped = made < mark;
          if (made == 0) {
            break;
          }
          int unfinished = store.listUnfinishedIds().size();
          if (unfinished != 0) {
            throw new IllegalStateException("PostgreSQL listed " + unfinished
                + " unfinished intents after a fill of finished ones");
          }
          double seconds = (System.nanoTime() - t0) / 1e9;
          long bytes = pgBytes(pg, "CHECKPOINT");
          String what = "PostgreSQL, " + made + " finished" + (stopped ? " (fill stopped at "
              + pgFillLimit.toSeconds() + " s)" : "");
          results.add(SECTION, what + ": disk per finished intent, as filled", "bytes",
              List.of((double) bytes / made),
              "tables + indexes + TOAST, dead versions included");
          System.out.printf(Locale.ROOT, "    %s: filled in %.0f s (%.0f intents/s), %.0f MB as"
              + " filled%n", what, seconds, made / seconds, bytes / 1e6);
          if (stopped || mark == marks().last()) {
            long c0 = System.nanoTime();
            long compacted = pgBytes(pg, "VACUUM FULL oncely_intent");
            results.add(SECTION, what + ": disk per finished intent, after VACUUM FULL",
                "bytes", List.of((double) compacted / made), "the live rows alone");
            System.out.printf(Locale.ROOT, "    %s: %.0f MB after VACUUM FULL (%.0f s)%n", what,
                compacted / 1e6, (System.nanoTime() - c0) / 1e9);
            break;
          }
        }
      }
      results.note(SECTION, version + ": a PostgresIntentStore on a server of its own, filled by " + PG_FILL_THREADS + " threads on as many pooled connections with"
          + " the same create + compare-and-set to COMPLETED, for at most "
          + pgFillLimit.toSeconds() + " s (the figures are at the size it reached, which the"
          + " row says), its connections committing with synchronous_commit=off (the rows and"
          + " their bytes are the same; only the commit does not wait for its WAL flush)."
          + " Bytes = pg_total_relation_size of oncely_intent and oncely_meta (table, indexes,"
          + " TOAST; WAL not counted) after a CHECKPOINT. 'As filled': what the files hold right"
          + " after the fill, autovacuum on as the server's default, so the earlier version each"
          + " completion leaves dead is still there unless autovacuum already reclaimed it (its"
          + " space is then reused by later rows, never given back): the ceiling. 'After VACUUM"
          + " FULL': the table and indexes rewritten to the live rows alone: the floor. A store in"
          + " steady state (expired rows purged while new ones arrive, autovacuum reclaiming dead"
          + " versions) sits between the two.");
    }
  }

  /** Runs {@code first}, then returns the bytes of the store's tables with their indexes. */
  private static long pgBytes(BenchPostgres pg, String first) {
    try (Connection c = pg.pool().getConnection(); Statement st = c.createStatement()) {
      st.execute(first);
      st.execute("CHECKPOINT");
      try (ResultSet rs = st.executeQuery("SELECT pg_total_relation_size('oncely_intent')"
          + " + pg_total_relation_size('oncely_meta')")) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("measuring the PostgreSQL tables failed: " + e, e);
    }
  }

  /**
   * The Android store's bytes per finished intent, by arithmetic from the JVM SQLite engine's
   * measured ones ({@code sqliteBytes}, per size): the same schema and, for a finished record, the
   * same row, so unencrypted (the Android default) they are the SQLite engine's; encrypted, each
   * row's record is longer by the sealing overhead measured here.
   */
  private void android(Map<Integer, Double> sqliteBytes) {
    byte[] key = new byte[StoreEncryption.KEY_BYTES];
    new SecureRandom().nextBytes(key);
    RecordCodec plain = new RecordCodec();
    RecordCodec sealed = new RecordCodec(StoreEncryption.aes256Gcm(key));
    long plainBytes = 0;
    long sealedBytes = 0;
    for (int i = 0; i < SEAL_SAMPLE; i++) {
      IntentRecord finished = Records.completed(Records.fresh(i, Payloads.order(i)), i);
      plainBytes += plain.encode(finished).length;
      sealedBytes += sealed.encode(finished).length;
    }
    double plainMean = (double) plainBytes / SEAL_SAMPLE;
    double sealedMean = (double) sealedBytes / SEAL_SAMPLE;
    double overhead = sealedMean - plainMean;
    results.add(SECTION, "finished record, RecordCodec bytes, plain", "bytes",
        List.of(plainMean), "mean of " + SEAL_SAMPLE + " records like the fill's");
    results.add(SECTION, "finished record, RecordCodec bytes, sealed (AES-256-GCM)", "bytes",
        List.of(sealedMean), "the same records, StoreEncryption.aes256Gcm");
    sqliteBytes.forEach((mark, bytes) -> {
      String what = "Android (arithmetic), " + mark + " finished";
      results.add(SECTION, what + ": disk per finished intent, unencrypted", "bytes",
          List.of(bytes), "= the SQLite engine's measured figure");
      results.add(SECTION, what + ": disk per finished intent, encrypted", "bytes",
          List.of(bytes + overhead), "SQLite's + sealing overhead per record");
    });
    results.note(SECTION, String.format(Locale.ROOT, "Android: arithmetic, not measured (the"
        + " Android engine runs only under Robolectric or on a device). It keeps each record in a"
        + " row of the SQLite schema every Oncely SQLite engine shares (IntentTable), and a"
        + " finished row holds the same columns in both engines (no stub once terminal), so"
        + " unencrypted (its default) its bytes per finished intent are taken as the JVM SQLite"
        + " engine's measured ones, and encrypted as those plus the sealing overhead per record,"
        + " measured in this run: %.1f bytes (RecordCodec with StoreEncryption.aes256Gcm minus"
        + " without, mean of %d finished records like the fill's: the 12-byte nonce and 16-byte"
        + " GCM tag). The platform SQLite's page fill and WAL checkpointing may differ.",
        overhead, SEAL_SAMPLE));
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

  /**
   * Creates and completes intents {@code from} to {@code to} (exclusive) in {@code store} from
   * {@code threads} threads, taking no new one once {@code late} says so; returns how many it
   * finished.
   */
  private static int fill(IntentStore store, int from, int to, int threads, BooleanSupplier late) {
    AtomicLong next = new AtomicLong(from);
    AtomicLong done = new AtomicLong();
    AtomicReference<Throwable> error = new AtomicReference<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(() -> {
        long i;
        while (error.get() == null && !late.getAsBoolean()
            && (i = next.getAndIncrement()) < to) {
          try {
            IntentRecord created = Records.fresh(i, Payloads.order(i));
            store.create(created);
            if (!store.compareAndSet(created, Records.completed(created, i))) {
              throw new IllegalStateException("completing " + created.id() + " lost a race");
            }
            done.incrementAndGet();
          } catch (RuntimeException e) {
            error.compareAndSet(null, e);
          }
        }
      }, "bench-scale-fill-" + t);
      worker.start();
      workers.add(worker);
    }
    try {
      for (Thread t : workers) {
        t.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while filling", e);
    }
    if (error.get() != null) {
      throw new IllegalStateException("filling failed", error.get());
    }
    return (int) done.get();
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
