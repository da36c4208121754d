package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

/**
 * Calls of one intent through one interceptor run one at a time: a second call of the same
 * business id (or the same app-set key) that arrives while the first is on the wire waits, then is
 * answered from the first call's record, so the server sees the intent once.
 */
class InterceptorSingleFlightTest {
  private static final String BODY = "{\"amount\":1000,\"currency\":\"JPY\"}";

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z"));
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private final CountDownLatch firstArrived = new CountDownLatch(1);
  private final CountDownLatch secondArrived = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger arrivals = new AtomicInteger();

  private OkHttpClient client() {
    IdempotencyInterceptor interceptor = IdempotencyInterceptor.builder().store(store)
        .clock(clock).sleeper(new RecordingSleeper(clock))
        .retryPolicy(RetryPolicy.builder().maxAttempts(3).attemptTimeout(Duration.ofSeconds(10))
            .deadline(Duration.ofMinutes(1)).build())
        .build();
    return interceptor.installOn(new OkHttpClient.Builder()).build();
  }

  /**
   * Holds the first request until a second one arrives (which single flight prevents) or, at the
   * latest, {@code holdFirst}; then answers {@code 201}.
   */
  private void holdFirstRequest(Duration holdFirst) {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        if (arrivals.incrementAndGet() == 1) {
          firstArrived.countDown();
          secondArrived.await(holdFirst.toMillis(), TimeUnit.MILLISECONDS);
          release.await(holdFirst.toMillis(), TimeUnit.MILLISECONDS);
        } else {
          secondArrived.countDown();
        }
        return new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}").build();
      }
    });
  }

  private Request tagged() {
    return new Request.Builder().url(server.url("/payments"))
        .tag(IntentTag.class, IntentTag.builder().operation("create-payment").scope("tenant-42")
            .businessId("order-7").build())
        .post(RequestBody.create(BODY, MediaType.get("application/json")))
        .build();
  }

  private Request withAppKey() {
    return new Request.Builder().url(server.url("/payments"))
        .header("Idempotency-Key", "\"app-key-1\"")
        .post(RequestBody.create(BODY, MediaType.get("application/json")))
        .build();
  }

  private static CompletableFuture<String> inBackground(Call call) {
    return CompletableFuture.supplyAsync(() -> {
      try (Response response = call.execute()) {
        return response.code() + " " + response.header(IdempotencyInterceptor.STORED_RESPONSE_HEADER)
            + " " + response.body().string();
      } catch (IOException e) {
        return "failed: " + e.getMessage();
      }
    });
  }

  @Test
  void a_second_call_of_a_business_id_waits_for_the_first_and_is_answered_from_its_record()
      throws Exception {
    holdFirstRequest(Duration.ofMillis(1500));
    release.countDown();
    OkHttpClient client = client();

    CompletableFuture<String> first = inBackground(client.newCall(tagged()));
    assertThat(firstArrived.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<String> second = inBackground(client.newCall(tagged()));

    assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo("201 null {\"id\":\"pay_1\"}");
    assertThat(second.get(20, TimeUnit.SECONDS)).isEqualTo("201 true {\"id\":\"pay_1\"}");
    assertThat(server.getRequestCount()).as("requests on the wire").isEqualTo(1);
    assertThat(store.listUnfinished()).isEmpty();
  }

  @Test
  void a_second_call_with_the_apps_own_key_waits_for_the_first() throws Exception {
    holdFirstRequest(Duration.ofMillis(1500));
    release.countDown();
    OkHttpClient client = client();

    CompletableFuture<String> first = inBackground(client.newCall(withAppKey()));
    assertThat(firstArrived.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<String> second = inBackground(client.newCall(withAppKey()));

    assertThat(first.get(20, TimeUnit.SECONDS)).startsWith("201 null");
    assertThat(second.get(20, TimeUnit.SECONDS)).startsWith("201 true");
    assertThat(server.getRequestCount()).as("requests on the wire").isEqualTo(1);
  }

  @Test
  void a_waiting_call_that_is_canceled_gives_up_without_sending() throws Exception {
    holdFirstRequest(Duration.ofMillis(1500));
    OkHttpClient client = client();
    CompletableFuture<String> first = inBackground(client.newCall(tagged()));
    assertThat(firstArrived.await(10, TimeUnit.SECONDS)).isTrue();

    Call waiting = client.newCall(tagged());
    CompletableFuture<String> second = inBackground(waiting);
    waiting.cancel();

    assertThat(second.get(20, TimeUnit.SECONDS)).isEqualTo("failed: Canceled");
    release.countDown();
    assertThat(first.get(20, TimeUnit.SECONDS)).startsWith("201 null");
    assertThat(server.getRequestCount()).as("requests on the wire").isEqualTo(1);
  }
}
