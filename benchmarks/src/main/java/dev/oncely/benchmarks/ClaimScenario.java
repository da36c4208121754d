package dev.oncely.benchmarks;

import dev.oncely.benchmarks.internal.Engine;
import dev.oncely.benchmarks.internal.ParallelFill;
import dev.oncely.benchmarks.internal.Records;
import dev.oncely.benchmarks.internal.TempDirs;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What one {@code claimDue(now, 64)} costs, the due-work scheduler's call on every tick, with 1,000
 * and with 100,000 unfinished records of 1.5 KB bodies, all due, on MapDB and SQLite: time and
 * bytes allocated per claim on the calling thread, after the JIT warmed up, from a store reopened
 * after the fill (as after a restart; the first claim, which builds MapDB's in-memory index, is
 * its own row). The claim before engines had an index (the store interface's default: read every
 * unfinished record, keep the due ones) is measured beside it, a few times.
 */
final class ClaimScenario {
  static final String SECTION = "claim";
  private static final int LIMIT = 64;
  private static final int BODY_BYTES = 1_536;
  private static final int FILL_THREADS = 64;
  private static final Duration WARMUP = Duration.ofSeconds(3);
  private static final int CLAIMS_PER_REP = 200;
  private static final int DEFAULT_CLAIM_REPS = 3;

  private final Settings settings;
  private final Results results;

  ClaimScenario(Settings settings, Results results) {
    this.settings = settings;
    this.results = results;
  }

  void run() {
    boolean smoke = "smoke".equals(settings.name());
    int[] sizes = smoke ? new int[] {100, 1_000} : new int[] {1_000, 100_000};
    for (Engine engine : new Engine[] {Engine.MAPDB, Engine.SQLITE}) {
      for (int n : sizes) {
        Path dir = TempDirs.create("claim");
        try {
          fill(engine, dir, n);
          measure(engine, dir, n, smoke);
        } finally {
          TempDirs.delete(dir);
        }
      }
    }
    results.note(SECTION, "Records are NEW payment intents with " + BODY_BYTES + "-byte bodies,"
        + " all due; each claim returns the 64 earliest. Time and allocation are per claim,"
        + " averaged over " + CLAIMS_PER_REP + " claims per repetition after " + WARMUP.toSeconds()
        + " s of warm-up claims; allocation is the calling thread's (SQLite's own page cache is"
        + " native memory and not counted). \"Default claim\" is the store interface's default,"
        + " which engines had before they kept a due-time index.");
  }

  private void measure(Engine engine, Path dir, int n, boolean smoke) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    Instant now = Instant.now().plusSeconds(60);
    String what = engine.label() + ", " + String.format(Locale.ROOT, "%,d", n) + " unfinished";
    try (IntentStore store = engine.open(dir)) {
      long t0 = System.nanoTime();
      check(store.claimDue(now, LIMIT), n);
      results.add(SECTION, what + ": first claim after open", "ms",
          List.of((System.nanoTime() - t0) / 1e6), engine == Engine.MAPDB
              ? "builds the in-memory due index from the unfinished stubs" : null);
      long warmEnd = System.nanoTime() + (smoke ? 0 : WARMUP.toNanos());
      do {
        check(store.claimDue(now, LIMIT), n);
      } while (System.nanoTime() < warmEnd);
      List<Double> micros = new ArrayList<>();
      List<Double> kilobytes = new ArrayList<>();
      int perRep = smoke ? 5 : CLAIMS_PER_REP;
      for (int rep = 0; rep < settings.reps(); rep++) {
        long bytes = threads.getCurrentThreadAllocatedBytes();
        long start = System.nanoTime();
        for (int i = 0; i < perRep; i++) {
          check(store.claimDue(now, LIMIT), n);
        }
        long elapsed = System.nanoTime() - start;
        bytes = threads.getCurrentThreadAllocatedBytes() - bytes;
        micros.add(elapsed / 1e3 / perRep);
        kilobytes.add(bytes / 1024.0 / perRep);
      }
      results.add(SECTION, what + ": claimDue(64)", "us", micros, null);
      results.add(SECTION, what + ": claimDue(64) allocation", "KB", kilobytes, null);

      IntentStore defaultClaim = new DefaultClaim(store);
      List<Double> defaultMillis = new ArrayList<>();
      List<Double> defaultMegabytes = new ArrayList<>();
      for (int rep = 0; rep < (smoke ? 1 : DEFAULT_CLAIM_REPS); rep++) {
        long bytes = threads.getCurrentThreadAllocatedBytes();
        long start = System.nanoTime();
        check(defaultClaim.claimDue(now, LIMIT), n);
        defaultMillis.add((System.nanoTime() - start) / 1e6);
        defaultMegabytes.add((threads.getCurrentThreadAllocatedBytes() - bytes) / 1048576.0);
      }
      results.add(SECTION, what + ": default claim, for comparison", "ms", defaultMillis, null);
      results.add(SECTION, what + ": default claim allocation", "MB", defaultMegabytes, null);
    }
  }

  private static void check(List<IntentRecord> claimed, int n) {
    if (claimed.size() != Math.min(LIMIT, n)) {
      throw new IllegalStateException("claimed " + claimed.size() + " of " + n + " due records");
    }
  }

  /** Fills {@code n} NEW records with {@link #BODY_BYTES}-byte bodies, on many threads. */
  private static void fill(Engine engine, Path dir, int n) {
    String pad = "x".repeat(BODY_BYTES - 40);
    ParallelFill.fill(engine, dir, n, FILL_THREADS, Duration.ofDays(1),
        i -> Records.fresh(i, "{\"order\":\"o-" + i + "\",\"pad\":\"" + pad + "\"}"));
  }

  /** {@code store} with the store interface's own claim, which reads every unfinished record. */
  private static final class DefaultClaim implements IntentStore {
    private final IntentStore store;

    DefaultClaim(IntentStore store) {
      this.store = store;
    }

    @Override
    public void create(IntentRecord record) {
      store.create(record);
    }

    @Override
    public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
      return store.compareAndSet(expected, replacement);
    }

    @Override
    public Optional<IntentRecord> get(IntentId id) {
      return store.get(id);
    }

    @Override
    public Optional<IntentRecord> findByBusinessId(String scope, String operation,
        String businessId) {
      return store.findByBusinessId(scope, operation, businessId);
    }

    @Override
    public List<IntentRecord> listUnfinished() {
      return store.listUnfinished();
    }

    @Override
    public int purgeExpired(Instant now) {
      return store.purgeExpired(now);
    }

    @Override
    public void close() {}
  }
}
