package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.internal.http.ResumeDrives;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

/**
 * Resuming a backlog through the interceptor keeps a bounded number of attempts on the app's
 * client at a time and still drives every record once, with its own key; resumed intents that wait
 * hold no thread, and closing the interceptor stops them, resumable.
 */
class InterceptorResumeBacklogTest {
  private static final int RECORDS = 40;
  private static final int MOST_AT_ONCE = ResumeDrives.ATTEMPTS_AT_ONCE;

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z"));
  private final InMemoryIntentStore store = new InMemoryIntentStore();

  private IdempotencyInterceptor interceptor() {
    return IdempotencyInterceptor.builder().store(store).clock(clock)
        .sleeper(new RecordingSleeper(clock))
        .retryPolicy(RetryPolicy.builder().maxAttempts(1).attemptTimeout(Duration.ofSeconds(10))
            .build())
        .build();
  }

  /** An app client that would run every queued call at once if asked to. */
  private static OkHttpClient appClient(IdempotencyInterceptor interceptor) {
    okhttp3.Dispatcher wide = new okhttp3.Dispatcher();
    wide.setMaxRequests(RECORDS * 2);
    wide.setMaxRequestsPerHost(RECORDS * 2);
    return interceptor.installOn(new OkHttpClient.Builder().dispatcher(wide)).build();
  }

  private Request order(int n) {
    return new Request.Builder().url(server.url("/payments"))
        .tag(IntentTag.class, IntentTag.builder().operation("create-payment").scope("tenant-42")
            .businessId("order-" + n).build())
        .post(RequestBody.create("{\"order\":" + n + "}", MediaType.get("application/json")))
        .build();
  }

  @Test
  void a_backlog_is_resumed_a_few_calls_at_a_time_and_every_record_completes_once()
      throws Exception {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return new MockResponse.Builder().code(503).build();
      }
    });
    IdempotencyInterceptor beforeRestart = interceptor();
    for (int i = 0; i < RECORDS; i++) {
      try (Response r = appClient(beforeRestart).newCall(order(i)).execute()) {
        assertThat(r.code()).isEqualTo(503);
      }
    }
    assertThat(store.listUnfinished()).hasSize(RECORDS);

    AtomicInteger onTheWire = new AtomicInteger();
    AtomicInteger mostOnTheWire = new AtomicInteger();
    Map<String, AtomicInteger> sendsPerKey = new ConcurrentHashMap<>();
    Object arrivals = new Object();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        sendsPerKey.computeIfAbsent(request.getHeaders().get("Idempotency-Key"),
            k -> new AtomicInteger()).incrementAndGet();
        int now = onTheWire.incrementAndGet();
        mostOnTheWire.accumulateAndGet(now, Math::max);
        synchronized (arrivals) {
          arrivals.notifyAll();
          // Hold each request until more than the limit are on the wire (a broken queue) or a
          // moment passed; a working queue never gets there.
          long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(150);
          while (onTheWire.get() <= MOST_AT_ONCE && System.nanoTime() < until) {
            arrivals.wait(10);
          }
        }
        onTheWire.decrementAndGet();
        return new MockResponse.Builder().code(201).body("{\"id\":\"pay\"}").build();
      }
    });
    IdempotencyInterceptor afterRestart = interceptor();
    List<CompletableFuture<IntentOutcome>> futures =
        afterRestart.resumePending(appClient(afterRestart), o -> { });

    assertThat(futures).hasSize(RECORDS);
    for (CompletableFuture<IntentOutcome> f : futures) {
      assertThat(f.get(30, TimeUnit.SECONDS)).isInstanceOf(IntentOutcome.Completed.class);
    }
    assertThat(mostOnTheWire.get()).as("resumed calls on the wire at once")
        .isLessThanOrEqualTo(MOST_AT_ONCE);
    assertThat(sendsPerKey).hasSize(RECORDS);
    assertThat(sendsPerKey.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(store.listUnfinished()).isEmpty();
  }

  @Test
  void resumed_intents_that_wait_hold_no_thread_and_close_stops_them_resumable()
      throws Exception {
    int backlog = RECORDS * 2;
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return new MockResponse.Builder().code(503).build();
      }
    });
    // On the system clock, as the resume after it: the records are minutes old, within the key
    // retention.
    IdempotencyInterceptor beforeRestart = IdempotencyInterceptor.builder().store(store)
        .retryPolicy(RetryPolicy.builder().maxAttempts(1).build()).build();
    for (int i = 0; i < backlog; i++) {
      try (Response r = appClient(beforeRestart).newCall(order(i)).execute()) {
        assertThat(r.code()).isEqualTo(503);
      }
    }
    Set<String> keysSeen = ConcurrentHashMap.newKeySet();
    Object arrivals = new Object();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        keysSeen.add(request.getHeaders().get("Idempotency-Key"));
        synchronized (arrivals) {
          arrivals.notifyAll();
        }
        // Shed: come back in an hour. Each resumed intent now waits, on a timer.
        return new MockResponse.Builder().code(503).addHeader("Retry-After", "3600").build();
      }
    });
    IdempotencyInterceptor afterRestart = IdempotencyInterceptor.builder().store(store)
        .retryPolicy(RetryPolicy.builder().maxAttempts(3).maxDelay(Duration.ofHours(2))
            .deadline(Duration.ofHours(3)).attemptTimeout(Duration.ofSeconds(10)).build())
        .build();
    OkHttpClient app = appClient(afterRestart);
    List<CompletableFuture<IntentOutcome>> futures = afterRestart.resumePending(app, o -> { });

    synchronized (arrivals) {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (keysSeen.size() < backlog && System.nanoTime() < until) {
        arrivals.wait(50);
      }
    }
    assertThat(keysSeen).as("every resumed intent got its first attempt while the others wait"
        + " (more intents than resume threads)").hasSize(backlog);
    // The last first attempts may still be reading their answers; the dispatcher says when no
    // call is left running.
    java.util.concurrent.CountDownLatch idle = new java.util.concurrent.CountDownLatch(1);
    app.dispatcher().setIdleCallback(idle::countDown);
    if (app.dispatcher().runningCallsCount() > 0) {
      idle.await(10, TimeUnit.SECONDS);
    }
    assertThat(app.dispatcher().runningCallsCount()).as("app calls held while waiting")
        .isZero();
    assertThat(futures).noneMatch(CompletableFuture::isDone);

    afterRestart.close();

    for (CompletableFuture<IntentOutcome> f : futures) {
      IntentOutcome outcome = f.get(5, TimeUnit.SECONDS);
      assertThat(outcome).isInstanceOfSatisfying(IntentOutcome.Pending.class,
          p -> assertThat(p.reason()).isEqualTo(PendingReason.INTERRUPTED));
    }
    assertThat(store.listUnfinished()).hasSize(backlog)
        .allSatisfy(r -> assertThat(r.state()).isEqualTo(IntentState.PENDING));
    assertThat(server.getRequestCount()).as("one attempt per intent after the restart")
        .isEqualTo(backlog * 2);
  }

  @Test
  void a_client_that_would_send_resumed_attempts_unseen_is_refused_before_anything_is_resumed() {
    IdempotencyInterceptor interceptor = interceptor();
    OkHttpClient without = new OkHttpClient();

    assertThatThrownBy(() -> interceptor.resumePending(without, o -> { }))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("installOn(builder)");
    assertThatThrownBy(() -> DueWorkScheduler.builder(interceptor, without))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("installOn(builder)");
    OkHttpClient applicationHalfOnly = new OkHttpClient.Builder().addInterceptor(interceptor)
        .build();
    assertThatThrownBy(() -> interceptor.resumePending(applicationHalfOnly, o -> { }))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("follows redirects");
    assertThat(server.getRequestCount()).isZero();
  }
}
