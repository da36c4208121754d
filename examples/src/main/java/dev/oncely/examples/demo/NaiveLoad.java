package dev.oncely.examples.demo;

import dev.oncely.examples.load.LoadDriver;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The comparison client: plain OkHttp (its default connection retries on) with an application
 * retry loop on timeouts, resets and 5xx, and no idempotency key. This is what many apps do, and
 * every retry after a lost answer charges the customer again.
 */
final class NaiveLoad {
  private static final MediaType JSON = MediaType.get("application/json");

  private NaiveLoad() {}

  static Report run(String target, int intents, int concurrency, Duration attemptTimeout,
      int maxAttempts) throws InterruptedException {
    OkHttpClient http = new OkHttpClient.Builder().callTimeout(attemptTimeout).build();
    LongAdder completed = new LongAdder();
    LongAdder gaveUp = new LongAdder();
    LongAdder attempts = new LongAdder();
    AtomicInteger next = new AtomicInteger();
    long started = System.nanoTime();
    ExecutorService workers = Executors.newFixedThreadPool(concurrency);
    for (int w = 0; w < concurrency; w++) {
      workers.execute(() -> {
        for (int i = next.getAndIncrement(); i < intents; i = next.getAndIncrement()) {
          if (send(http, target, i, maxAttempts, attempts)) {
            completed.increment();
          } else {
            gaveUp.increment();
          }
        }
      });
    }
    workers.shutdown();
    workers.awaitTermination(1, TimeUnit.DAYS);
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    return new Report(completed.sum(), gaveUp.sum(), attempts.sum(), elapsedMs);
  }

  private static boolean send(OkHttpClient http, String target, int i, int maxAttempts,
      LongAdder attempts) {
    Request request = new Request.Builder().url(target)
        .post(RequestBody.create(LoadDriver.paymentBody(i), JSON)).build();
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      attempts.increment();
      try (Response response = http.newCall(request).execute()) {
        if (response.code() < 500) {
          return response.isSuccessful();
        }
      } catch (IOException timeoutOrReset) {
        // "It probably failed": try again, which is exactly the bug this demo shows.
      }
    }
    return false;
  }

  /** What the naive client saw. */
  record Report(long completed, long gaveUp, long attempts, long elapsedMs) {}
}
