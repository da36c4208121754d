package dev.oncely.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.event.IntentListener;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.NoDelayServerSockets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import mockwebserver3.MockWebServer;
import okhttp3.ConnectionPool;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The numbers quoted in {@code docs/persistence-postgres.md} and the README: intents/s at
 * concurrency 64 with the PostgreSQL store against plain OkHttp in the same run (the testing kit's
 * {@link IdempotentServer} on a loopback MockWebServer, the benchmarks module's OkHttp setup),
 * commits per intent, and the cost of the claim query with 1,000,000 finished rows in the table. Printed, never asserted. Runs only with {@code -Doncely.measure=true}:
 * {@code mvn -B -pl client-postgres -am verify -Dtest=PostgresStoreMeasurement
 * -Dsurefire.failIfNoSpecifiedTests=false -Doncely.measure=true}.
 */
@EnabledIfSystemProperty(named = "oncely.measure", matches = "true")
class PostgresStoreMeasurement {
  private static final int THREADS = 64;
  private static final Duration WARMUP = Duration.ofSeconds(3);
  private static final Duration WINDOW = Duration.ofSeconds(8);

  @Test
  void intents_per_second_at_c64_against_plain_okhttp_and_the_claim_query_cost() throws Exception {
    try (PgTestDatabase db = PgTestDatabase.create();
        MockWebServer server = new MockWebServer();
        HikariDataSource pool = PgTestDatabase.pool(db.url, 32)) {
      server.setServerSocketFactory(new NoDelayServerSockets());
      server.setDispatcher(IdempotentServer.builder().build());
      server.start();
      String url = server.url("/payments").toString();
      OkHttpClient http = new OkHttpClient.Builder()
          .connectionPool(new ConnectionPool(256, 5, TimeUnit.MINUTES))
          .retryOnConnectionFailure(false)
          .build();
      AtomicInteger next = new AtomicInteger();
      for (int rep = 0; rep < 3; rep++) {
        double plain = rate(() -> plainPost(http, url, next.incrementAndGet()));
        try (PostgresIntentStore store = PostgresIntentStore.builder(pool).build();
            IdempotentClient client = IdempotentClient.builder().okHttpClient(http).store(store)
                .listener(IntentListener.NONE).driverThreads(THREADS).build()) {
          long commitsBefore = commits(db);
          AtomicLong intents = new AtomicLong();
          double sdk = rate(() -> {
            IntentOutcome o = client.execute(IntentSpec.builder().operation("create-payment")
                .scope("bench").post(url).jsonBody(payment(next.incrementAndGet())).build());
            if (!(o instanceof IntentOutcome.Completed)) {
              throw new IllegalStateException("not completed: " + o);
            }
            intents.incrementAndGet();
          });
          double perIntent = (commits(db) - commitsBefore) / (double) intents.get();
          System.out.printf("measure rep %d: plain OkHttp %.0f req/s, PostgreSQL store %.0f"
              + " intents/s (%.2f x), %.2f commits per intent%n", rep + 1, plain, sdk,
              sdk / plain, perIntent);
        }
      }
      claimCost(db);
    }
  }

  private interface Op {
    void run() throws Exception;
  }

  /** The body the benchmarks module sends (about 70 bytes). */
  private static String payment(long seq) {
    return "{\"amount\":1000,\"currency\":\"JPY\",\"customer\":\"c-" + (seq % 97)
        + "\",\"order\":\"o-" + seq + "\"}";
  }

  private static void plainPost(OkHttpClient http, String url, int n) throws Exception {
    Request request = new Request.Builder().url(url)
        .header("Idempotency-Key", "\"" + UUID.randomUUID() + "\"")
        .post(RequestBody.create(payment(n), MediaType.get("application/json")))
        .build();
    try (Response response = http.newCall(request).execute()) {
      if (response.code() != 201) {
        throw new IllegalStateException("status " + response.code());
      }
      response.body().bytes();
    }
  }

  /** Runs {@code op} on {@value #THREADS} threads: warm-up, then a measured window; ops/s. */
  private static double rate(Op op) throws Exception {
    runFor(op, WARMUP);
    return runFor(op, WINDOW) / (WINDOW.toMillis() / 1000.0);
  }

  private static long runFor(Op op, Duration window) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    AtomicLong done = new AtomicLong();
    long end = System.nanoTime() + window.toNanos();
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        futures.add(pool.submit(() -> {
          while (System.nanoTime() < end) {
            op.run();
            done.incrementAndGet();
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get(window.toSeconds() + 60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    return done.get();
  }

  private static long commits(PgTestDatabase db) throws SQLException {
    try (Connection c = db.pool.getConnection(); Statement st = c.createStatement()) {
      st.execute("SELECT pg_stat_clear_snapshot()");
      try (ResultSet rs = st.executeQuery("SELECT xact_commit FROM pg_stat_database"
          + " WHERE datname = current_database()")) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * Adds finished rows up to 1,000,000 plus 1,000 due ones, then times claimDue(64) followed by
   * releasing the claims, and prints the claim query's plan.
   */
  private static void claimCost(PgTestDatabase db) throws Exception {
    try (Connection c = db.pool.getConnection(); Statement st = c.createStatement()) {
      long start = System.nanoTime();
      st.execute("INSERT INTO oncely_intent (lookup, scope, operation, business_id, state,"
          + " revision, attempts, due_at, created_at, updated_at, expires_at, record)"
          + " SELECT sha256(('done-' || g)::bytea), 'bulk', 'op', 'b-' || g, 'COMPLETED', 2, 1,"
          + " NULL, now(), now(), now() + interval '7 days', sha256(g::text::bytea)"
          + " FROM generate_series(1, 1000000) g");
      st.execute("ANALYZE oncely_intent");
      System.out.printf("measure: inserted 1,000,000 finished rows in %.1f s%n",
          (System.nanoTime() - start) / 1e9);
    }
    try (PostgresIntentStore store = PostgresIntentStore.builder(db.pool).build()) {
      String base = "http://127.0.0.1:9";
      IdempotentClient factory = IdempotentClient.builder().store(store).build();
      for (int i = 0; i < 1000; i++) {
        IntentRecord r = factory.newRecord(Workload.spec(base, 1_000_000 + i));
        try (Connection c = db.pool.getConnection()) {
          store.createInTransaction(c, r);
        }
        store.release(r.id());
      }
      factory.close();
      int rounds = 300;
      long[] nanos = new long[rounds];
      for (int i = 0; i < rounds; i++) {
        long t0 = System.nanoTime();
        List<IntentRecord> claimed = store.claimDue(Instant.now(), 64);
        nanos[i] = System.nanoTime() - t0;
        for (IntentRecord r : claimed) {
          store.release(r.id());
        }
        if (claimed.size() != 64) {
          throw new IllegalStateException("claimed " + claimed.size());
        }
      }
      java.util.Arrays.sort(nanos);
      System.out.printf("measure: claimDue(64) with 1,000,000 finished + 1,000 due rows:"
          + " p50 %.2f ms, p99 %.2f ms (%d rounds)%n", nanos[rounds / 2] / 1e6,
          nanos[rounds * 99 / 100] / 1e6, rounds);
    }
    try (Connection c = db.pool.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("EXPLAIN (ANALYZE, BUFFERS) SELECT lookup FROM oncely_intent"
            + " WHERE due_at <= now() AND (lease_until IS NULL OR lease_until <= clock_timestamp())"
            + " ORDER BY due_at LIMIT 64 FOR UPDATE SKIP LOCKED")) {
      while (rs.next()) {
        System.out.println("measure plan: " + rs.getString(1));
      }
    }
  }
}
