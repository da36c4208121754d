package dev.oncely.benchmarks;

import dev.oncely.benchmarks.internal.Http;
import dev.oncely.benchmarks.internal.Payloads;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.event.EventCounter;
import dev.oncely.examples.server.FaultKind;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.OkHttpClient;

/**
 * The SDK with its default retry policy and budget against a server that drops 20 %
 * of {@code POST /payments} answers after committing the payment: attempts per intent and the
 * duplicate payments the server counted.
 */
final class RetryScenario {
  static final String SECTION = "retry";
  private static final double DROP = 0.2;

  private final Settings settings;
  private final Results results;

  RetryScenario(Settings settings, Results results) {
    this.settings = settings;
    this.results = results;
  }

  void run() {
    int n = settings.retryIntents();
    List<Double> attemptsPerIntent = new ArrayList<>();
    List<Double> duplicates = new ArrayList<>();
    List<Double> effectsPerIntent = new ArrayList<>();
    List<Double> notCompleted = new ArrayList<>();
    List<Double> dropped = new ArrayList<>();
    OkHttpClient http = Http.client();
    for (int rep = 0; rep < settings.reps(); rep++) {
      FaultPlan faults = FaultPlan.builder().drop(DROP).seed(1000 + rep).build();
      EventCounter events = new EventCounter();
      AtomicLong incomplete = new AtomicLong();
      try (ReferenceServer server = ReferenceServer.builder().faults(faults).build().start();
          IdempotentClient client = IdempotentClient.builder().okHttpClient(http)
              .listener(events).build()) {
        String url = server.baseUrl() + "payments";
        AtomicInteger next = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < settings.retryConcurrency(); t++) {
          Thread worker = new Thread(() -> {
            int i;
            while ((i = next.getAndIncrement()) < n) {
              IntentOutcome o = client.execute(IntentSpec.builder().operation("create-payment")
                  .scope("bench").post(url).jsonBody(Payloads.payment(i)).build());
              if (!(o instanceof IntentOutcome.Completed)) {
                incomplete.incrementAndGet();
              }
            }
          }, "bench-retry-" + t);
          worker.start();
          threads.add(worker);
        }
        join(threads);
        ServerStats stats = server.stats();
        attemptsPerIntent.add((double) events.attempts() / n);
        duplicates.add((double) stats.duplicates());
        effectsPerIntent.add((double) stats.effects() / n);
        notCompleted.add((double) incomplete.get());
        dropped.add((double) stats.faults(FaultKind.DROP) / stats.requests());
        System.out.printf("    rep %d attempts/intent %.3f, duplicates %d, not completed %d%n",
            rep + 1, (double) events.attempts() / n, stats.duplicates(), incomplete.get());
      }
    }
    http.connectionPool().evictAll();
    results.add(SECTION, "attempts per intent (20 % dropped after commit)", "attempts",
        attemptsPerIntent, "<= 1.3 (ideal 1.25)", v -> v <= 1.3, null);
    results.add(SECTION, "duplicate payments on the server", "payments", duplicates, "0",
        v -> v == 0, null);
    results.add(SECTION, "payments per intent", "payments", effectsPerIntent, "1", v -> v == 1,
        null);
    results.add(SECTION, "intents not completed", "intents", notCompleted, null);
    results.add(SECTION, "share of requests dropped", "ratio", dropped, null);
    results.note(SECTION, n + " intents per repetition at concurrency "
        + settings.retryConcurrency() + ", default RetryPolicy and RetryBudget, in-memory store,"
        + " server faults drop=" + DROP + " (seed varies per repetition).");
  }

  static void join(List<Thread> threads) {
    try {
      for (Thread t : threads) {
        t.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
