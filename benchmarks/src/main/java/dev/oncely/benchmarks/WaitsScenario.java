package dev.oncely.benchmarks;

import dev.oncely.benchmarks.internal.TempDirs;
import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentStore;
import dev.oncely.client.RetryPolicy;
import dev.oncely.persistence.StoreEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;

/**
 * Many intents waiting at once: a provider sheds load with {@code 503} + {@code
 * Retry-After: 1} for the first two requests of each key and then answers {@code 201}. N intents
 * are submitted at once with the default settings (default budget, listener and driver threads;
 * a policy of 6 attempts within 10 minutes), and N more, each left waiting by a client closed after
 * its first answer, are resumed by a new client on the same store file, and N more by an
 * interceptor through the app's OkHttp client. Reports drain times, the
 * threads the client added at the peak, and requests and effects per key. A wait that held a
 * thread would take N x 2 s / driver threads; on timers it takes about the server's 2 s.
 */
final class WaitsScenario {
  static final String SECTION = "waits";
  private static final RetryPolicy POLICY = RetryPolicy.builder().maxAttempts(6)
      .deadline(Duration.ofMinutes(10)).build();

  private final int intents;
  private final int reps;
  private final Results results;

  WaitsScenario(int intents, int reps, Results results) {
    this.intents = intents;
    this.reps = reps;
    this.results = results;
  }

  void run() {
    List<Double> submitDrain = new ArrayList<>();
    List<Double> resumeDrain = new ArrayList<>();
    List<Double> submitThreads = new ArrayList<>();
    List<Double> resumeThreads = new ArrayList<>();
    List<Double> interceptorDrain = new ArrayList<>();
    List<Double> interceptorThreads = new ArrayList<>();
    List<Double> requestsPerKey = new ArrayList<>();
    List<Double> effectsPerKey = new ArrayList<>();
    List<Double> notCompleted = new ArrayList<>();
    for (int rep = 0; rep < reps; rep++) {
      Path dir = TempDirs.create("waits");
      try (Shedding server = new Shedding()) {
        ThreadPeak peak = new ThreadPeak();
        long t0 = System.nanoTime();
        List<CompletableFuture<IntentOutcome>> submitted = new ArrayList<>();
        int incomplete;
        try (IntentStore store = StoreEngine.defaultEngine().open(dir.resolve("submit.db"));
            IdempotentClient client = IdempotentClient.builder().store(store).retryPolicy(POLICY)
                .build()) {
          for (int i = 0; i < intents; i++) {
            submitted.add(client.submit(spec(server, "s" + i)));
          }
          incomplete = awaitAll(submitted, peak);
        }
        submitDrain.add((System.nanoTime() - t0) / 1e9);
        submitThreads.add((double) peak.added());

        Path file = dir.resolve("resume.db");
        leaveWaiting(server, file, "r");
        ThreadPeak resumePeak = new ThreadPeak();
        long t1 = System.nanoTime();
        try (IntentStore store = StoreEngine.defaultEngine().open(file);
            IdempotentClient client = IdempotentClient.builder().store(store).retryPolicy(POLICY)
                .build()) {
          incomplete += awaitAll(client.resumePending(), resumePeak);
        }
        resumeDrain.add((System.nanoTime() - t1) / 1e9);
        resumeThreads.add((double) resumePeak.added());

        // The same backlog resumed through the interceptor, on the app's own OkHttp client.
        Path interceptorFile = dir.resolve("interceptor-resume.db");
        leaveWaiting(server, interceptorFile, "i");
        ThreadPeak interceptorPeak = new ThreadPeak();
        long t2 = System.nanoTime();
        try (IntentStore store = StoreEngine.defaultEngine().open(interceptorFile);
            IdempotencyInterceptor interceptor = IdempotencyInterceptor.builder().store(store)
                .retryPolicy(POLICY).build()) {
          OkHttpClient app = interceptor.installOn(new OkHttpClient.Builder()).build();
          incomplete += awaitAll(interceptor.resumePending(app, outcome -> { }), interceptorPeak);
          app.dispatcher().executorService().shutdown();
          app.connectionPool().evictAll();
        }
        interceptorDrain.add((System.nanoTime() - t2) / 1e9);
        interceptorThreads.add((double) interceptorPeak.added());
        requestsPerKey.add((double) server.requests() / (3.0 * intents));
        effectsPerKey.add((double) server.effects() / (3.0 * intents));
        notCompleted.add((double) incomplete);
        System.out.printf("    rep %d: submit drained in %.2f s (+%d threads), resume in %.2f s"
            + " (+%d threads), interceptor resume in %.2f s (+%d threads), %.2f requests per"
            + " key%n", rep + 1, submitDrain.get(rep), peak.added(), resumeDrain.get(rep),
            resumePeak.added(), interceptorDrain.get(rep), interceptorPeak.added(),
            requestsPerKey.get(rep));
        System.out.println("    threads at the submit peak: " + peak.atPeak());
      } finally {
        TempDirs.delete(dir);
      }
    }
    int threadsAllowed = IdempotentClient.DEFAULT_DRIVER_THREADS + 8;
    results.add(SECTION, intents + " submitted intents drained", "s", submitDrain, "<= 5",
        v -> v <= 5, null);
    results.add(SECTION, intents + " resumed intents drained", "s", resumeDrain, "<= 4",
        v -> v <= 4, null);
    results.add(SECTION, intents + " resumed intents drained through the interceptor", "s",
        interceptorDrain, "<= 5", v -> v <= 5, null);
    results.add(SECTION, "threads added at the peak, submit", "threads", submitThreads,
        "<= " + threadsAllowed, v -> v <= threadsAllowed, null);
    results.add(SECTION, "threads added at the peak, resume", "threads", resumeThreads,
        "<= " + threadsAllowed, v -> v <= threadsAllowed, null);
    results.add(SECTION, "threads added at the peak, interceptor resume", "threads",
        interceptorThreads, "<= " + threadsAllowed, v -> v <= threadsAllowed, null);
    results.add(SECTION, "requests per key", "requests", requestsPerKey, "3", v -> v == 3, null);
    results.add(SECTION, "effects per key", "effects", effectsPerKey, "1", v -> v == 1, null);
    results.add(SECTION, "intents not completed", "intents", notCompleted, "0", v -> v == 0, null);
    results.note(SECTION, intents + " intents submitted at once and " + intents + " resumed"
        + " after a restart by a new client, and " + intents + " more by an interceptor through the"
        + " app's OkHttp client (installOn on OkHttp's defaults), per repetition; the server answers 503 + Retry-After: 1 to the first"
        + " two requests of each key, then 201. Default store engine, budget, listener and "
        + IdempotentClient.DEFAULT_DRIVER_THREADS + " driver threads; policy: 6 attempts within"
        + " 10 minutes. Threads are the JVM's live threads beyond those before the run, without"
        + " the in-process server's.");
  }

  /**
   * Stores {@code intents} records in {@code file}, each left waiting after its first answer (a
   * client closed while they wait): the backlog a restart finds.
   */
  private void leaveWaiting(Shedding server, Path file, String prefix) {
    try (IntentStore store = StoreEngine.defaultEngine().open(file);
        IdempotentClient client = IdempotentClient.builder().store(store).retryPolicy(POLICY)
            .build()) {
      int before = server.requests();
      for (int i = 0; i < intents; i++) {
        client.submit(spec(server, prefix + i));
      }
      server.awaitRequests(before + intents);
    }
  }

  private IntentSpec spec(Shedding server, String order) {
    return IntentSpec.builder().operation("create-payment").scope("bench")
        .post(server.url()).jsonBody("{\"amount\":1000,\"order\":\"" + order + "\"}")
        .build();
  }

  /** Waits for every future, sampling live threads; returns how many did not complete. */
  private static int awaitAll(List<CompletableFuture<IntentOutcome>> futures, ThreadPeak peak) {
    CompletableFuture<Void> all = CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new));
    while (!all.isDone()) {
      peak.sample();
      try {
        all.get(10, java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException notYet) {
        // sample again
      } catch (Exception e) {
        throw new IllegalStateException("a drive failed", e);
      }
    }
    peak.sample();
    int incomplete = 0;
    for (CompletableFuture<IntentOutcome> f : futures) {
      if (!(f.join() instanceof IntentOutcome.Completed)) {
        incomplete++;
      }
    }
    return incomplete;
  }

  /** The most live threads seen, not counting the in-process server's, beyond a baseline. */
  private static final class ThreadPeak {
    private final Map<String, Integer> baseline = clientThreads();
    private Map<String, Integer> peak = baseline;

    void sample() {
      Map<String, Integer> now = clientThreads();
      if (total(now) > total(peak)) {
        peak = now;
      }
    }

    int added() {
      return total(peak) - total(baseline);
    }

    /** The threads at the peak by name, numbers stripped, with how many there were. */
    String atPeak() {
      return new java.util.TreeMap<>(peak).toString();
    }

    private static int total(Map<String, Integer> threads) {
      return threads.values().stream().mapToInt(Integer::intValue).sum();
    }

    private static Map<String, Integer> clientThreads() {
      Map<String, Integer> byName = new java.util.HashMap<>();
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (t.isAlive() && !t.getName().startsWith("MockWebServer")) {
          byName.merge(t.getName().replaceAll("[0-9]+", "#"), 1, Integer::sum);
        }
      }
      return byName;
    }
  }

  /** A provider shedding the first two requests of each key with 503 + Retry-After: 1. */
  private static final class Shedding extends Dispatcher implements AutoCloseable {
    private final MockWebServer server = new MockWebServer();
    private final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger effects = new AtomicInteger();

    Shedding() {
      server.setDispatcher(this);
      try {
        server.start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    String url() {
      return server.url("/payments").toString();
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      String key = request.getHeaders().get("Idempotency-Key");
      int n = seen.computeIfAbsent(String.valueOf(key), k -> new AtomicInteger()).incrementAndGet();
      synchronized (this) {
        requests.incrementAndGet();
        notifyAll();
      }
      if (n <= 2) {
        return new MockResponse.Builder().code(503).addHeader("Retry-After", "1").build();
      }
      if (n == 3) {
        effects.incrementAndGet();
      }
      return new MockResponse.Builder().code(201).body("{\"id\":\"pay\"}").build();
    }

    int requests() {
      return requests.get();
    }

    int effects() {
      return effects.get();
    }

    synchronized void awaitRequests(int count) {
      try {
        while (requests.get() < count) {
          wait(1_000);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }

    @Override
    public void close() {
      server.close();
    }
  }
}
