package dev.oncely.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class KeyConcurrencyTest {
  private final MockWebServer web = new MockWebServer();
  private final OkHttpClient http = new OkHttpClient.Builder()
      .readTimeout(30, TimeUnit.SECONDS).retryOnConnectionFailure(false).build();
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() throws IOException {
    pool.shutdownNow();
    web.close();
  }

  private KeyConcurrency start(KeyConcurrency wire) throws IOException {
    web.setDispatcher(wire);
    web.start();
    return wire;
  }

  private int post(String key) throws IOException {
    Request.Builder r = new Request.Builder().url(web.url("/payments"))
        .post(RequestBody.create("{\"amount\":5}", MediaType.get("application/json")));
    if (key != null) {
      r.header("Idempotency-Key", key);
    }
    try (Response response = http.newCall(r.build()).execute()) {
      return response.code();
    }
  }

  /** Holds the first request of each run until the second one arrived. */
  private static final class Gate extends Dispatcher {
    final CountDownLatch both = new CountDownLatch(2);

    @Override
    public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
      both.countDown();
      both.await(10, TimeUnit.SECONDS);
      return new MockResponse.Builder().code(201).build();
    }
  }

  @Test
  void two_requests_of_one_key_in_progress_at_once_are_caught() throws Exception {
    KeyConcurrency wire = start(KeyConcurrency.over(new Gate()).build());

    Future<Integer> a = pool.submit(() -> post("\"k1\""));
    Future<Integer> b = pool.submit(() -> post("\"k1\""));

    assertThat(a.get(20, TimeUnit.SECONDS)).isEqualTo(201);
    assertThat(b.get(20, TimeUnit.SECONDS)).isEqualTo(201);
    assertThat(wire.maxInProgressOfOneKey()).isEqualTo(2);
    assertThat(wire.overlaps()).isEqualTo(1);
    assertThat(wire.overlappingKeys()).containsExactly("\"k1\"");
    assertThat(wire.inProgress()).isZero();
    assertThatThrownBy(wire::assertNeverConcurrent).isInstanceOf(AssertionError.class)
        .hasMessageContaining("\"k1\"");
  }

  @Test
  void two_keys_in_progress_at_once_are_not_an_overlap() throws Exception {
    KeyConcurrency wire = start(KeyConcurrency.over(new Gate()).build());

    Future<Integer> a = pool.submit(() -> post("\"k1\""));
    Future<Integer> b = pool.submit(() -> post("\"k2\""));

    assertThat(a.get(20, TimeUnit.SECONDS)).isEqualTo(201);
    assertThat(b.get(20, TimeUnit.SECONDS)).isEqualTo(201);
    assertThat(wire.maxInProgressOfOneKey()).isEqualTo(1);
    wire.assertNeverConcurrent();
  }

  @Test
  void sequential_repeats_of_a_key_over_the_kit_are_never_concurrent() throws Exception {
    IdempotentServer kit = IdempotentServer.builder().build();
    KeyConcurrency wire = start(KeyConcurrency.over(kit)
        .holdUpTo(Duration.ofMillis(5), 3).build());

    assertThat(post("\"k1\"")).isEqualTo(201);
    assertThat(post("\"k1\"")).isEqualTo(201);
    assertThat(post(null)).isEqualTo(400);

    assertThat(wire.maxInProgressOfOneKey()).isEqualTo(1);
    assertThat(wire.overlaps()).isZero();
    wire.assertNeverConcurrent();
    assertThat(kit.ledger().size()).isEqualTo(1);
    assertThat(kit.requestCount()).isEqualTo(3);
  }

  @Test
  void a_held_request_is_in_progress_before_the_server_handles_it() throws Exception {
    IdempotentServer kit = IdempotentServer.builder().build();
    // Seed 35 holds the first request of "k1" 1902 ms and the second 26 ms.
    KeyConcurrency wire = start(KeyConcurrency.over(kit)
        .holdUpTo(Duration.ofSeconds(2), 35).build());
    assertThat(Dice.seeded(35).roll("\"k1\"", 1) % 2001).isEqualTo(1902);

    Future<Integer> first = pool.submit(() -> post("\"k1\""));
    assertThat(wire.awaitInProgress(1, Duration.ofSeconds(20)))
        .as("the first request was seen in progress").isTrue();
    assertThat(first.isDone()).as("the first request ended before it was seen").isFalse();
    Future<Integer> second = pool.submit(() -> post("\"k1\""));

    assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo(201);
    assertThat(second.get(20, TimeUnit.SECONDS)).isEqualTo(201);
    assertThat(wire.overlaps()).isEqualTo(1);
    assertThat(kit.ledger().size()).isEqualTo(1);
    assertThat(wire.inProgress()).isZero();
  }

  @Test
  void a_hold_outside_0_to_1_minute_is_refused_with_its_name() {
    assertThatThrownBy(() -> KeyConcurrency.over(IdempotentServer.builder().build())
        .holdUpTo(Duration.ofMinutes(2), 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holdUpTo");
    assertThatThrownBy(() -> KeyConcurrency.over(IdempotentServer.builder().build())
        .keyHeader(" ")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyHeader");
  }
}
