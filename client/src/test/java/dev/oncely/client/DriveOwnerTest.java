package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.event.IntentListener;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.testing.WatchedStore;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
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
 * Every drive has one owner in the process, waits hold no thread, and a drive stops with its
 * owner. Real OkHttp calls against MockWebServer, the system timer (no test sleeper), so
 * the waits are real and short ({@code Retry-After: 1}).
 */
class DriveOwnerTest {
  private static final MediaType JSON = MediaType.get("application/json");
  private static final String BODY = "{\"amount\":1000,\"currency\":\"JPY\"}";
  private static final RetryPolicy POLICY = RetryPolicy.builder().maxAttempts(6)
      .maxDelay(Duration.ofMinutes(1))
      .attemptTimeout(Duration.ofSeconds(5)).deadline(Duration.ofMinutes(1)).build();

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final WatchedStore store = new WatchedStore(new InMemoryIntentStore());

  /** Sheds the first {@code sheds} requests of each key with 503 + Retry-After, then 201. */
  private void shed(int sheds, int retryAfterSeconds) {
    java.util.Map<String, Integer> seen = new java.util.concurrent.ConcurrentHashMap<>();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        int n = seen.merge(String.valueOf(request.getHeaders().get("Idempotency-Key")), 1,
            Integer::sum);
        return n <= sheds
            ? new MockResponse.Builder().code(503)
                .addHeader("Retry-After", String.valueOf(retryAfterSeconds)).build()
            : new MockResponse.Builder().code(201).body("{\"id\":\"pay\"}").build();
      }
    });
  }

  private IntentSpec spec(String order) {
    return IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post(server.url("/payments").toString()).jsonBody("{\"order\":\"" + order + "\"}")
        .businessId(order).build();
  }

  private List<String> keysInArrivalOrder() throws InterruptedException {
    List<String> keys = new ArrayList<>();
    int n = server.getRequestCount();
    for (int i = 0; i < n; i++) {
      keys.add(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Idempotency-Key"));
    }
    return keys;
  }

  @Test
  void a_waiting_intent_gives_its_driver_thread_back() throws Exception {
    shed(1, 1);
    ThreadPoolExecutor one = (ThreadPoolExecutor) Executors.newFixedThreadPool(1);
    try (IdempotentClient client = IdempotentClient.builder().store(store).retryPolicy(POLICY)
        .listener(IntentListener.NONE).executor(one).build()) {
      List<CompletableFuture<IntentOutcome>> all = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        all.add(client.submit(spec("order-" + i)));
      }
      for (CompletableFuture<IntentOutcome> f : all) {
        assertThat(f.get(20, TimeUnit.SECONDS)).isInstanceOf(IntentOutcome.Completed.class);
      }
    } finally {
      one.shutdownNow();
    }
    // With one driver thread, a wait that held it would send each intent's resend before the
    // next intent's first attempt; on the timer, every first attempt goes out before any resend.
    List<String> keys = keysInArrivalOrder();
    assertThat(keys).hasSize(16);
    assertThat(keys.subList(0, 8)).doesNotHaveDuplicates();
    assertThat(keys.subList(8, 16)).containsExactlyInAnyOrderElementsOf(keys.subList(0, 8));
  }

  @Test
  void closing_the_client_stops_waiting_intents_at_once_and_nothing_is_sent_after() throws Exception {
    shed(1, 30);
    IntentSpec spec = spec("order-1");
    IdempotentClient client = IdempotentClient.builder().store(store).retryPolicy(POLICY)
        .listener(IntentListener.NONE).build();
    CompletableFuture<IntentOutcome> outcome = client.submit(spec);
    server.takeRequest(5, TimeUnit.SECONDS);
    awaitRecord(spec, r -> r.nextAttemptAt() != null && r.attempts() == 2);

    long start = System.nanoTime();
    client.close();

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(outcome.get(1, TimeUnit.SECONDS)).isInstanceOfSatisfying(
        IntentOutcome.Pending.class, p -> {
          assertThat(p.reason()).isEqualTo(PendingReason.INTERRUPTED);
          assertThat(p.detail()).contains("the client was closed");
        });
    IntentRecord record = store.get(spec.id()).orElseThrow();
    assertThat(record.state()).isEqualTo(IntentState.PENDING);
    assertThat(record.attempts()).isEqualTo(1);
    assertThat(record.maybeDelivered()).isTrue();
    // Still due when the server said, so a resume honours the Retry-After.
    assertThat(record.nextAttemptAt()).isAfter(Instant.now().plusSeconds(20));
    // No drive of it is left in the process (its timer is gone), so nothing can be sent later.
    assertThat(readOutcome(spec.id()))
        .isInstanceOfSatisfying(IntentOutcome.Pending.class,
            p -> assertThat(p.reason()).isNotEqualTo(PendingReason.IN_PROGRESS));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void closing_the_interceptor_stops_its_calls_and_refuses_new_intents() throws Exception {
    shed(1, 30);
    IdempotencyInterceptor oncely = IdempotencyInterceptor.builder().store(store)
        .retryPolicy(POLICY).listener(IntentListener.NONE).build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder()).build();
    Request tagged = new Request.Builder().url(server.url("/payments"))
        .post(RequestBody.create(BODY, JSON)).tag(IntentTag.class, IntentTag.builder()
            .operation("create-payment").scope("tenant-a").businessId("order-2").build())
        .build();
    CompletableFuture<Object> call = CompletableFuture.supplyAsync(() -> {
      try (Response response = app.newCall(tagged).execute()) {
        return response.code();
      } catch (IOException e) {
        return e;
      }
    });
    server.takeRequest(5, TimeUnit.SECONDS);
    awaitTagged(r -> r.attempts() == 2);

    oncely.close();

    assertThat(call.get(5, TimeUnit.SECONDS)).isInstanceOf(IOException.class);
    IntentRecord record = store.findByBusinessId("tenant-a", "create-payment", "order-2")
        .orElseThrow();
    assertThat(record.state()).isEqualTo(IntentState.PENDING);
    assertThat(record.reason()).startsWith(PendingReason.INTERRUPTED.name())
        .contains("the interceptor was closed");
    assertThatThrownBy(() -> app.newCall(tagged).execute())
        .isInstanceOf(IntentIOException.class).hasMessageContaining("closed");
    // No drive of it is left in the process (its timer is gone), so nothing can be sent later.
    assertThat(record.reason()).doesNotStartWith(PendingReason.IN_PROGRESS.name());
    assertThat(readOutcome(record.id())).isInstanceOfSatisfying(IntentOutcome.Pending.class,
            p -> assertThat(p.reason()).isNotEqualTo(PendingReason.IN_PROGRESS));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void a_decorated_store_and_the_store_it_decorates_share_one_drive_per_intent()
      throws Exception {
    shed(1, 1);
    IntentStore decorated = new ForwardingIntentStore(store) { };
    IntentSpec spec = spec("order-3");
    try (IdempotentClient first = IdempotentClient.builder().store(decorated).retryPolicy(POLICY)
            .listener(IntentListener.NONE).build();
        IdempotentClient second = IdempotentClient.builder().store(store).retryPolicy(POLICY)
            .listener(IntentListener.NONE).build()) {
      CompletableFuture<IntentOutcome> driving = first.submit(spec);
      server.takeRequest(5, TimeUnit.SECONDS);
      awaitRecord(spec, r -> r.attempts() == 2);

      assertThat(second.outcomeOf(spec.id()).orElseThrow()).isInstanceOfSatisfying(
          IntentOutcome.Pending.class, p -> assertThat(p.reason())
              .isEqualTo(PendingReason.IN_PROGRESS));
      CompletableFuture<IntentOutcome> joined = second.resume(spec.id());

      assertThat(joined.get(10, TimeUnit.SECONDS)).isInstanceOf(IntentOutcome.Completed.class);
      assertThat(driving.get(1, TimeUnit.SECONDS)).isInstanceOf(IntentOutcome.Completed.class);
    }
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void a_claimed_record_is_held_until_its_attempt_times_out_and_counts_the_attempt_on_the_wire()
      throws Exception {
    shed(2, 1);
    IntentSpec spec = spec("order-4");
    try (IdempotentClient client = IdempotentClient.builder().store(store).retryPolicy(POLICY)
        .listener(IntentListener.NONE).build()) {
      CompletableFuture<IntentOutcome> outcome = client.submit(spec);
      server.takeRequest(5, TimeUnit.SECONDS);
      server.takeRequest(5, TimeUnit.SECONDS);
      IntentRecord waiting = awaitRecord(spec, r -> r.attempts() == 3);

      assertThat(waiting.state()).isEqualTo(IntentState.IN_FLIGHT);
      // Held until the resend after the wait has timed out: never due while the drive lives.
      assertThat(DueTime.of(waiting)).isAfter(Instant.now().plus(POLICY.attemptTimeout()));
      assertThat(client.outcomeOf(IntentTag.builder().operation("create-payment")
          .scope("tenant-a").businessId("order-4").build()).orElseThrow())
          .isInstanceOfSatisfying(IntentOutcome.Pending.class,
              p -> assertThat(p.reason()).isEqualTo(PendingReason.IN_PROGRESS));
      assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(IntentOutcome.Completed.class);
    }
    IntentRecord done = store.get(spec.id()).orElseThrow();
    assertThat(done.attempts()).isEqualTo(3);
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  private IntentRecord awaitRecord(IntentSpec spec,
      java.util.function.Predicate<IntentRecord> condition) throws InterruptedException {
    return await(() -> store.get(spec.id()).filter(condition).orElse(null));
  }

  private IntentRecord awaitTagged(java.util.function.Predicate<IntentRecord> condition)
      throws InterruptedException {
    return await(() -> store.findByBusinessId("tenant-a", "create-payment", "order-2")
        .filter(condition).orElse(null));
  }

  /** The outcome a fresh client on the store reads: IN_PROGRESS while any drive of it runs here. */
  private IntentOutcome readOutcome(dev.oncely.client.IntentId id) {
    try (IdempotentClient reader = IdempotentClient.builder().store(store)
        .listener(IntentListener.NONE).build()) {
      return reader.outcomeOf(id).orElseThrow();
    }
  }

  private IntentRecord await(java.util.function.Supplier<IntentRecord> read)
      throws InterruptedException {
    IntentRecord record = store.await(read, Duration.ofSeconds(10));
    if (record == null) {
      throw new AssertionError("the record never reached the expected state");
    }
    return record;
  }
}
