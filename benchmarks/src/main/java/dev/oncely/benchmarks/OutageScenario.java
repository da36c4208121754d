package dev.oncely.benchmarks;

import dev.oncely.benchmarks.internal.Http;
import dev.oncely.benchmarks.internal.Payloads;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.OkHttpClient;

/**
 * Many clients start an intent together while the server refuses every connection;
 * the server heals after a while. Compares the SDK's full-jitter backoff with the same backoff
 * without jitter (every wait at its ceiling): the peak request rate in the first second of traffic
 * after recovery, total requests and the time until every intent completed.
 */
final class OutageScenario {
  static final String SECTION = "outage";
  private static final int MAX_ATTEMPTS = 12;
  private static final long BUCKET_NANOS = 100_000_000L;

  private final Settings settings;
  private final Results results;

  OutageScenario(Settings settings, Results results) {
    this.settings = settings;
    this.results = results;
  }

  /** What one outage run saw. */
  private record Run(double peakPerSecond, double firstSecond, double requests, double drainSeconds,
      double completed, double duplicates) {}

  /** Backoff without jitter: {@code nextDouble()} is always just below 1, so every wait is its ceiling. */
  private static final class NoJitter extends Random {
    private static final long serialVersionUID = 1L;

    @Override
    public double nextDouble() {
      return Math.nextDown(1.0);
    }
  }

  void run() {
    List<Run> jitter = new ArrayList<>();
    List<Run> none = new ArrayList<>();
    OkHttpClient http = Http.client();
    for (int rep = 0; rep < settings.reps(); rep++) {
      boolean jitterFirst = rep % 2 == 0;
      for (int k = 0; k < 2; k++) {
        boolean withJitter = (k == 0) == jitterFirst;
        Run r = once(http, withJitter ? new Random(rep) : new NoJitter());
        (withJitter ? jitter : none).add(r);
        System.out.printf("    rep %d %-9s peak %5.0f req/s, first second %4.0f, requests %5.0f,"
            + " drain %5.2f s, completed %3.0f%n", rep + 1, withJitter ? "jitter" : "no jitter",
            r.peakPerSecond(), r.firstSecond(), r.requests(), r.drainSeconds(), r.completed());
      }
      http.connectionPool().evictAll();
    }
    String clients = settings.outageClients() + " clients";
    for (String which : new String[] {"full jitter", "no jitter"}) {
      List<Run> runs = which.equals("full jitter") ? jitter : none;
      results.add(SECTION, which + ": peak request rate, first second after recovery", "req/s",
          runs.stream().map(Run::peakPerSecond).toList(), null);
      results.add(SECTION, which + ": requests in first second after recovery", "requests",
          runs.stream().map(Run::firstSecond).toList(), null);
      results.add(SECTION, which + ": total requests", "requests",
          runs.stream().map(Run::requests).toList(), null);
      results.add(SECTION, which + ": time to drain after recovery", "s",
          runs.stream().map(Run::drainSeconds).toList(), null);
      results.add(SECTION, which + ": intents completed", "intents",
          runs.stream().map(Run::completed).toList(), null, null, "of " + clients);
      results.add(SECTION, which + ": duplicate payments", "payments",
          runs.stream().map(Run::duplicates).toList(), "0", v -> v == 0, null);
    }
    results.add(SECTION, "peak rate full jitter / no jitter", "x",
        ThroughputScenario.ratios(jitter.stream().map(Run::peakPerSecond).toList(),
            none.stream().map(Run::peakPerSecond).toList()), "<= 0.33", v -> v <= 1.0 / 3, null);
    results.note(SECTION, clients + " (one IdempotentClient and RetryBudget each, shared OkHttp"
        + " pool) start one intent each at the same instant; the server refuses every connection"
        + " for " + settings.outage().toMillis() + " ms, then is healthy. Default RetryPolicy"
        + " (base 200 ms, cap 20 s) with maxAttempts " + MAX_ATTEMPTS + " so nobody gives up"
        + " during the outage. 'First second after recovery' is the second starting at the first"
        + " request sent after the server healed; the peak is the busiest 100 ms of it, per second."
        + " Requests are counted where they are sent (AttemptStarted events).");
  }

  private Run once(OkHttpClient http, Random random) {
    int n = settings.outageClients();
    long[] sent = new long[n * (MAX_ATTEMPTS + 1)];
    AtomicInteger sentCount = new AtomicInteger();
    IntentListener listener = event -> {
      if (event instanceof IntentEvent.AttemptStarted) {
        int i = sentCount.getAndIncrement();
        if (i < sent.length) {
          sent[i] = System.nanoTime();
        }
      }
    };
    RetryPolicy policy = RetryPolicy.defaults().toBuilder().maxAttempts(MAX_ATTEMPTS).build();
    AtomicLong healedAt = new AtomicLong();
    AtomicLong lastDone = new AtomicLong();
    AtomicInteger completed = new AtomicInteger();
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    List<IdempotentClient> clients = new ArrayList<>();
    try (ReferenceServer server = ReferenceServer.builder()
        .faults(FaultPlan.builder().refuse(1.0).build()).build().start()) {
      String url = server.baseUrl() + "payments";
      for (int i = 0; i < n; i++) {
        clients.add(IdempotentClient.builder().okHttpClient(http).listener(listener)
            .retryPolicy(policy).jitter(random).build());
      }
      CountDownLatch go = new CountDownLatch(1);
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        IdempotentClient client = clients.get(i);
        int seq = i;
        Thread t = new Thread(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            return;
          }
          IntentOutcome o = client.execute(IntentSpec.builder().operation("create-payment")
              .scope("bench").post(url).jsonBody(Payloads.payment(seq)).build());
          if (o instanceof IntentOutcome.Completed) {
            completed.incrementAndGet();
          }
          lastDone.accumulateAndGet(System.nanoTime(), Math::max);
        }, "bench-outage-" + i);
        t.start();
        threads.add(t);
      }
      timer.schedule(() -> {
        server.changeFaults(FaultPlan.none());
        healedAt.set(System.nanoTime());
      }, settings.outage().toNanos(), TimeUnit.NANOSECONDS);
      go.countDown();
      RetryScenario.join(threads);
      long duplicates = server.stats().duplicates();
      return measure(Arrays.copyOf(sent, Math.min(sent.length, sentCount.get())), healedAt.get(),
          lastDone.get(), completed.get(), duplicates);
    } finally {
      timer.shutdownNow();
      clients.forEach(IdempotentClient::close);
    }
  }

  private static Run measure(long[] sent, long healed, long lastDone, int completed,
      long duplicates) {
    Arrays.sort(sent);
    long first = Long.MAX_VALUE;
    for (long t : sent) {
      if (t >= healed) {
        first = t;
        break;
      }
    }
    int[] buckets = new int[10];
    int inFirstSecond = 0;
    for (long t : sent) {
      if (t >= first && t < first + 10 * BUCKET_NANOS) {
        buckets[(int) ((t - first) / BUCKET_NANOS)]++;
        inFirstSecond++;
      }
    }
    int peak = Arrays.stream(buckets).max().orElse(0);
    return new Run(peak * (1e9 / BUCKET_NANOS), inFirstSecond, sent.length,
        (lastDone - healed) / 1e9, completed, duplicates);
  }
}
