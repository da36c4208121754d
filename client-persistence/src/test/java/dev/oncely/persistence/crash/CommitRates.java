package dev.oncely.persistence.crash;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.IntentStoreContract;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.persistence.StoreEngine;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Measures durable commit rates (not a test; numbers go into docs/persistence-sqlite.md): creates
 * per second through an engine at concurrency 1 and 64 (group commit), against a raw
 * {@link FileChannel} append + {@code force(false)} per record in the same run on the same disk;
 * plus, for SQLite, the cost of the open-time integrity check and of purging. It sits beside
 * {@link CrashEngines} so every engine the kill tests know can be measured by name.
 *
 * <p>Run: {@code java -cp <test classpath> dev.oncely.persistence.crash.CommitRates [engine] [dir]}.
 */
public final class CommitRates {
  private CommitRates() {}

  public static void main(String[] args) throws Exception {
    String engine = args.length > 0 ? args[0] : "sqlite";
    Path dir = Files.createTempDirectory(args.length > 1 ? Path.of(args[1]) : Path.of("."),
        "commit-rates");
    try {
      System.out.printf("engine %s, dir %s, %d cores%n", engine, dir,
          Runtime.getRuntime().availableProcessors());
      for (int round = 1; round <= 2; round++) {
        System.out.printf("round %d%n", round);
        System.out.printf("  raw FileChannel append+force(false), 1 thread: %,.0f records/s%n",
            rawAppend(dir.resolve("raw-" + round + ".log"), 2_000));
        System.out.printf("  %s durable creates, 1 thread:   %,.0f /s%n", engine,
            creates(engine, dir.resolve("c1-" + round + ".db"), 1, 2_000));
        System.out.printf("  %s durable creates, 64 threads: %,.0f /s%n", engine,
            creates(engine, dir.resolve("c64-" + round + ".db"), 64, 20_000));
      }
      if (engine.equals("sqlite")) {
        for (int n : new int[] {10_000, 100_000}) {
          openAndPurgeCosts(dir.resolve("big-" + n + ".db"), n);
        }
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private static IntentRecord record(String key) {
    return IntentStoreContract.fullRecord("bench", "create-payment", key);
  }

  private static double rawAppend(Path file, int count) throws Exception {
    byte[] bytes = new RecordCodec().encode(record("raw"));
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      long start = System.nanoTime();
      for (int i = 0; i < count; i++) {
        ch.write(ByteBuffer.wrap(bytes));
        ch.force(false);
      }
      return count / seconds(start);
    }
  }

  private static double creates(String engine, Path file, int threads, int count) throws Exception {
    try (IntentStore store = StoreEngine.parse(engine).open(file)) {
      AtomicInteger next = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        long start = System.nanoTime();
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          futures.add(pool.submit(() -> {
            for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
              store.create(record("k" + i));
            }
            return null;
          }));
        }
        for (Future<?> f : futures) {
          f.get();
        }
        return count / seconds(start);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  private static void openAndPurgeCosts(Path file, int records) throws Exception {
    Instant expiry = Instant.parse("2026-11-30T00:00:00Z");
    try (IntentStore store = StoreEngine.SQLITE.open(file)) {
      ExecutorService pool = Executors.newFixedThreadPool(64);
      AtomicInteger next = new AtomicInteger();
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 64; t++) {
        futures.add(pool.submit(() -> {
          for (int i = next.getAndIncrement(); i < records; i = next.getAndIncrement()) {
            IntentRecord r = record("k" + i).toBuilder().expiresAt(expiry).build();
            store.create(r);
            if (i < records / 2) {
              store.compareAndSet(r, r.successor().state(IntentState.COMPLETED).build());
            }
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      pool.shutdownNow();
    }
    long size = Files.size(file);
    long start = System.nanoTime();
    StoreEngine.SQLITE.open(file).close();
    double open = seconds(start) * 1000;
    double quick = pragmaMillis(file, "PRAGMA quick_check");
    double integrity = pragmaMillis(file, "PRAGMA integrity_check");
    System.out.printf("  %,d records, the older half finished (%,d bytes): open incl. integrity_check %.0f ms;"
        + " quick_check alone %.0f ms, integrity_check alone %.0f ms%n",
        records, size, open, quick, integrity);
    Path copy = file.resolveSibling(file.getFileName() + ".copy");
    Files.copy(file, copy);
    int purged;
    double purgeMs;
    try (IntentStore store = StoreEngine.SQLITE.open(file)) {
      start = System.nanoTime();
      purged = store.purgeExpired(expiry);
      purgeMs = seconds(start) * 1000;
    }
    System.out.printf("  purge of %,d with incremental_vacuum: %.0f ms, file %,d -> %,d bytes%n",
        purged, purgeMs, size, Files.size(file));
    double vacuumMs;
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + copy);
        Statement st = c.createStatement()) {
      start = System.nanoTime();
      st.executeUpdate("DELETE FROM intent WHERE purge_s IS NOT NULL");
      st.executeUpdate("VACUUM");
      vacuumMs = seconds(start) * 1000;
    }
    System.out.printf("  same purge with a full VACUUM instead: %.0f ms, file %,d bytes%n",
        vacuumMs, Files.size(copy));
  }

  private static double pragmaMillis(Path file, String pragma) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement()) {
      long start = System.nanoTime();
      try (ResultSet rs = st.executeQuery(pragma)) {
        while (rs.next()) {
          continue;
        }
      }
      return seconds(start) * 1000;
    }
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
