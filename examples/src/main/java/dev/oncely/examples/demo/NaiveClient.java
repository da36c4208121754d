package dev.oncely.examples.demo;

import dev.oncely.examples.load.LoadDriver;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
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
 * The client most code bases start with, kept as the demo's point of comparison: plain OkHttp
 * (defaults, including its silent {@code retryOnConnectionFailure}), a retry loop with exponential
 * backoff on timeouts, connection failures and {@code 5xx}/{@code 408}/{@code 429}, and <em>no
 * idempotency key</em>. Every resend of a payment whose first answer was lost is a second charge.
 *
 * <p>{@link #run} sends the load driver's {@linkplain LoadDriver#paymentBody payment bodies} to
 * {@code POST /payments}. Thread-safe counters may be read while it runs.
 */
public final class NaiveClient {
  /** Attempts per payment, the same as the SDK's default. */
  public static final int MAX_ATTEMPTS = 6;
  private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");
  private static final long BASE_DELAY_MS = 200;

  private final OkHttpClient http;
  private final String paymentsUrl;
  private final AtomicInteger finished = new AtomicInteger();
  private final LongAdder completed = new LongAdder();
  private final LongAdder gaveUp = new LongAdder();
  private final LongAdder attempts = new LongAdder();

  /**
   * @param baseUrl the server's base URL ending in {@code /}
   * @param attemptTimeout read and write timeout of one attempt
   */
  public NaiveClient(String baseUrl, Duration attemptTimeout) {
    Objects.requireNonNull(baseUrl, "baseUrl");
    this.paymentsUrl = baseUrl + "payments";
    this.http = new OkHttpClient.Builder()
        .connectTimeout(attemptTimeout)
        .readTimeout(attemptTimeout)
        .writeTimeout(attemptTimeout)
        .build();
  }

  /**
   * Pays intents {@code 0 .. intents-1} with {@code concurrency} threads and returns when every one
   * either got a final answer or ran out of attempts.
   *
   * @throws InterruptedException if interrupted while waiting; the workers are stopped
   */
  public void run(int intents, int concurrency) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(concurrency, r -> {
      Thread t = new Thread(r, "naive-client");
      t.setDaemon(true);
      return t;
    });
    try {
      for (int i = 0; i < intents; i++) {
        int n = i;
        pool.execute(() -> pay(n));
      }
      pool.shutdown();
      // Bounded: each payment ends after at most MAX_ATTEMPTS attempts with timeouts.
      pool.awaitTermination(Long.MAX_VALUE, TimeUnit.MILLISECONDS);
    } finally {
      pool.shutdownNow();
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    }
  }

  private void pay(int i) {
    RequestBody body = RequestBody.create(LoadDriver.paymentBody(i), JSON);
    Request request = new Request.Builder().url(paymentsUrl).post(body).build();
    try {
      for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        attempts.increment();
        if (attemptSucceeded(request)) {
          completed.increment();
          return;
        }
        if (attempt < MAX_ATTEMPTS) {
          Thread.sleep(BASE_DELAY_MS << (attempt - 1));
        }
      }
      gaveUp.increment();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      gaveUp.increment();
    } finally {
      finished.incrementAndGet();
    }
  }

  /** Whether the attempt got a final answer; false means "retry". */
  private boolean attemptSucceeded(Request request) throws InterruptedException {
    try (Response response = http.newCall(request).execute()) {
      int code = response.code();
      return !(code == 408 || code == 429 || code >= 500);
    } catch (InterruptedIOException e) {
      if (Thread.currentThread().isInterrupted()) {
        throw new InterruptedException("naive client stopped");
      }
      return false;
    } catch (IOException e) {
      return false;
    }
  }

  /** Payments that ended, with an answer or after their last attempt. */
  public int finished() {
    return finished.get();
  }

  /** Payments that got a final answer (2xx, including {@code 202}, or a 4xx refusal). */
  public long completed() {
    return completed.sum();
  }

  /** Payments abandoned after {@value #MAX_ATTEMPTS} failed attempts. */
  public long gaveUp() {
    return gaveUp.sum();
  }

  /** Calls made by the retry loop (OkHttp's own silent resends are not counted here). */
  public long attempts() {
    return attempts.sum();
  }
}
