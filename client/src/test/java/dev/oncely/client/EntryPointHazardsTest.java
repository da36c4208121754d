package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.testing.AsyncCalls;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.testing.Fault;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * The paths through either entry point that could end in a second send, a second key, a false
 * "failed", a leaked credential, another account's response or a record that could never finish:
 * one test each, through the entry point where the path runs, on real OkHttp calls against
 * MockWebServer.
 */
class EntryPointHazardsTest {
  private static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  private static final MediaType JSON = MediaType.get("application/json");
  private static final String BODY = "{\"amount\":1000,\"currency\":\"JPY\"}";

  @StartStop
  private final MockWebServer server = new MockWebServer();
  @StartStop
  private final MockWebServer elsewhere = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final InMemoryIntentStore store = new InMemoryIntentStore();

  private static RetryPolicy attempts(int n) {
    return RetryPolicy.builder().maxAttempts(n).baseDelay(Duration.ofMillis(10))
        .attemptTimeout(Duration.ofSeconds(2)).deadline(Duration.ofMinutes(5)).build();
  }

  private IdempotencyInterceptor.Builder interceptor(int attempts) {
    return IdempotencyInterceptor.builder().store(store).clock(clock).sleeper(sleeper)
        .listener(IntentListener.NONE).retryPolicy(attempts(attempts));
  }

  private IdempotentClient.Builder client(int attempts) {
    return IdempotentClient.builder().store(store).clock(clock).sleeper(sleeper)
        .listener(IntentListener.NONE).retryPolicy(attempts(attempts));
  }

  private Request payment(String path) {
    return new Request.Builder().url(server.url(path)).post(RequestBody.create(BODY, JSON))
        .build();
  }

  private static MockResponse created() {
    return new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}").build();
  }

  private static MockResponse status(int code) {
    return new MockResponse.Builder().code(code).build();
  }

  private List<RecordedRequest> received(MockWebServer on) throws InterruptedException {
    List<RecordedRequest> all = new java.util.ArrayList<>();
    for (int i = 0; i < on.getRequestCount(); i++) {
      all.add(on.takeRequest(5, TimeUnit.SECONDS));
    }
    return all;
  }

  private IntentSpec spec(String businessId) {
    return IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post(server.url("/payments").toString()).jsonBody(BODY).businessId(businessId).build();
  }

  // 1. Two sends of one intent (intent API).

  @Test
  void a_second_submit_while_the_first_is_being_recorded_joins_the_first_drive() throws Exception {
    server.enqueue(created());
    server.enqueue(created());
    CountDownLatch recorded = new CountDownLatch(1);
    CountDownLatch secondSubmitted = new CountDownLatch(1);
    IntentListener held = event -> {
      if (event instanceof IntentEvent.Recorded && recorded.getCount() == 1) {
        recorded.countDown();
        try {
          secondSubmitted.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    try (IdempotentClient client = client(2).listener(held).build()) {
      CompletableFuture<IntentOutcome> first = CompletableFuture.supplyAsync(
          () -> client.execute(spec("order-1")));
      recorded.await(2, TimeUnit.SECONDS);
      // submit() enters the intent's drive before it returns: it joins the held first drive.
      CompletableFuture<IntentOutcome> second = client.submit(spec("order-1"));
      secondSubmitted.countDown();

      assertThat(first.get(5, TimeUnit.SECONDS)).isInstanceOf(IntentOutcome.Completed.class);
      assertThat(second.get(5, TimeUnit.SECONDS)).isInstanceOf(IntentOutcome.Completed.class);
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  // 2 and 3. A resend by an app interceptor outside ours: counted, and under the same key.

  @Test
  void an_outer_retry_goes_out_under_the_same_key_and_is_judged_as_a_repeat_delivery()
      throws Exception {
    server.enqueue(Fault.dropAfterCommit().applyTo(new MockResponse.Builder().code(201)).build());
    server.enqueue(status(404));
    IdempotencyInterceptor oncely = IdempotencyInterceptor.builder().clock(clock).sleeper(sleeper)
        .listener(IntentListener.NONE).retryPolicy(attempts(1)).build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder()
        .addInterceptor(chain -> {
          try {
            return chain.proceed(chain.request());
          } catch (IOException first) {
            return chain.proceed(chain.request());
          }
        })).build();

    assertThatThrownBy(() -> app.newCall(payment("/payments")).execute())
        .isInstanceOf(IntentIOException.class)
        .hasCauseInstanceOf(IntentPendingException.class);
    List<RecordedRequest> sent = received(server);
    assertThat(sent).hasSize(2);
    assertThat(sent.get(1).getHeaders().get("Idempotency-Key"))
        .isEqualTo(sent.get(0).getHeaders().get("Idempotency-Key"));
  }

  // 4. A cancel after the first byte is maybe delivered.

  @Test
  void a_cancel_after_the_request_was_written_leaves_the_intent_maybe_delivered()
      throws Exception {
    server.enqueue(Fault.stallAfterCommit().applyTo(new MockResponse.Builder().code(201)).build());
    server.enqueue(status(404));
    IdempotencyInterceptor oncely = interceptor(1).build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder()).build();
    Request tagged = payment("/payments").newBuilder().tag(IntentTag.class,
        IntentTag.builder().operation("create-payment").scope("tenant-a").businessId("order-4")
            .build()).build();
    Call call = app.newCall(tagged);
    CompletableFuture<IOException> failed = AsyncCalls.failureOf(call);
    assertThat(server.takeRequest(5, TimeUnit.SECONDS)).isNotNull();
    call.cancel();
    assertThat(failed.get(5, TimeUnit.SECONDS)).isNotNull();

    IntentRecord record = store.findByBusinessId("tenant-a", "create-payment", "order-4")
        .orElseThrow();
    assertThat(record.state()).isEqualTo(IntentState.PENDING);
    assertThat(record.maybeDelivered()).isTrue();
    IntentOutcome resumed = oncely.resumePending(app, o -> { }).get(0).get(5, TimeUnit.SECONDS);
    assertThat(resumed).isNotInstanceOf(IntentOutcome.Rejected.class);
  }

  // 5. A redirect to another origin is never followed with the app's headers and the key.

  @Test
  void a_see_other_to_another_origin_is_judged_and_never_followed() throws Exception {
    server.enqueue(new MockResponse.Builder().code(303)
        .addHeader("Location", elsewhere.url("/landing").toString()).build());
    elsewhere.enqueue(created());
    IdempotencyInterceptor oncely = interceptor(1).build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder()
        .addInterceptor(chain -> chain.proceed(chain.request().newBuilder()
            .header("Authorization", "Bearer secret").header("Cookie", "session=1").build())))
        .build();

    try (Response response = app.newCall(payment("/payments")).execute()) {
      assertThat(response.code()).isNotEqualTo(201);
    } catch (IntentIOException expected) {
      assertThat(expected.getCause()).isInstanceOfAny(IntentPendingException.class,
          NeedsReconciliationException.class);
    }
    assertThat(elsewhere.getRequestCount()).isZero();
  }

  @Test
  void a_client_that_follows_redirects_without_the_network_half_is_refused_before_any_io() {
    IdempotencyInterceptor oncely = interceptor(1).build();
    OkHttpClient app = new OkHttpClient.Builder().addInterceptor(oncely).build();

    assertThatThrownBy(() -> app.newCall(payment("/payments")).execute())
        .isInstanceOf(IntentIOException.class)
        .hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("installOn");
    assertThat(server.getRequestCount()).isZero();
    assertThat(store.listUnfinished()).isEmpty();
  }

  // 6. Two accounts with the same app-set key never share a record or a response.

  @Test
  void two_accounts_sending_the_same_key_get_their_own_records_and_answers() throws Exception {
    server.enqueue(new MockResponse.Builder().code(201).body("{\"account\":\"a\"}").build());
    server.enqueue(new MockResponse.Builder().code(201).body("{\"account\":\"b\"}").build());
    OkHttpClient app = interceptor(1).build().installOn(new OkHttpClient.Builder()).build();
    String[] bodies = new String[2];
    String[] tokens = {"Bearer account-a", "Bearer account-b"};
    for (int i = 0; i < 2; i++) {
      Request request = payment("/payments").newBuilder().header("Authorization", tokens[i])
          .header("Idempotency-Key", "\"evt_42\"").build();
      try (Response response = app.newCall(request).execute()) {
        bodies[i] = response.body().string();
        assertThat(response.header(IdempotencyInterceptor.STORED_RESPONSE_HEADER)).isNull();
      }
    }
    assertThat(bodies).containsExactly("{\"account\":\"a\"}", "{\"account\":\"b\"}");
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  // 7. A record of the intent API with volatile fields is resumed by the interceptor.

  @Test
  void the_interceptor_resumes_an_intent_api_record_with_volatile_fields_from_its_own_bytes()
      throws Exception {
    server.enqueue(created());
    IntentSpec spec = IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post(server.url("/payments").toString())
        .jsonBody("{\"amount\":1000,\"sentAt\":\"2026-12-01T08:00:00Z\"}")
        .volatileFields("sentAt").businessId("order-7").build();
    try (IdempotentClient client = client(1).build()) {
      store.create(client.newRecord(spec));
    }
    IdempotencyInterceptor oncely = interceptor(1).build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder()).build();

    IntentOutcome outcome = oncely.resumePending(app, o -> { }).get(0).get(5, TimeUnit.SECONDS);

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(received(server).get(0).getBody().utf8())
        .isEqualTo("{\"amount\":1000,\"sentAt\":\"2026-12-01T08:00:00Z\"}");
  }

  // 8. Nothing but an outcome leaves execute().

  @Test
  void a_credential_okhttp_refuses_is_an_unsent_attempt_never_an_exception() throws Exception {
    try (IdempotentClient client = client(2)
        .headerProvider((id, url) -> Map.of("Authorization", "Bearer token\n")).build()) {
      IntentOutcome outcome = client.execute(spec("order-8"));

      assertThat(outcome).isInstanceOf(IntentOutcome.Pending.class);
      IntentRecord record = store.get(outcome.id()).orElseThrow();
      assertThat(record.state()).isEqualTo(IntentState.PENDING);
      assertThat(record.maybeDelivered()).isFalse();
    }
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void a_store_that_fails_the_lookup_after_a_duplicate_gives_pending_store_failed() {
    IntentSpec spec = spec("order-9");
    AtomicBoolean broken = new AtomicBoolean();
    IntentStore failing = new ForwardingIntentStore(store) {
      @Override
      public Optional<IntentRecord> get(IntentId id) {
        if (broken.get()) {
          throw new StoreException("connection reset during the lookup");
        }
        return super.get(id);
      }
    };
    try (IdempotentClient client = IdempotentClient.builder().store(failing).clock(clock)
        .sleeper(sleeper).listener(IntentListener.NONE).build()) {
      store.create(client.newRecord(spec));
      broken.set(true);

      IntentOutcome outcome = client.execute(spec);

      assertThat(outcome).isInstanceOfSatisfying(IntentOutcome.Pending.class,
          p -> assertThat(p.reason()).isEqualTo(PendingReason.STORE_FAILED));
    }
  }

  // Where the two loops disagreed: a parked interceptor record keeps the server's Retry-After.

  @Test
  void the_interceptor_stores_the_due_time_the_server_asked_for() throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", "10").build());
    OkHttpClient app = interceptor(1).build().installOn(new OkHttpClient.Builder()).build();
    Request tagged = payment("/payments").newBuilder().tag(IntentTag.class,
        IntentTag.builder().operation("create-payment").scope("tenant-a").businessId("order-10")
            .build()).build();

    app.newCall(tagged).execute().close();

    IntentRecord record = store.findByBusinessId("tenant-a", "create-payment", "order-10")
        .orElseThrow();
    assertThat(record.state()).isEqualTo(IntentState.PENDING);
    assertThat(record.nextAttemptAt()).isEqualTo(T0.plusSeconds(10));
  }

  // Where the two loops disagreed: the network gate holds the interceptor's calls too.

  @Test
  void an_offline_gate_parks_an_interceptor_call_without_sending_it() throws Exception {
    NetworkGate offline = new NetworkGate() {
      @Override
      public boolean isOpen() {
        return false;
      }

      @Override
      public void whenOpen(Runnable action) {
        // never back online during this test
      }
    };
    IdempotencyInterceptor oncely = interceptor(2).networkGate(offline)
        .retryPolicy(RetryPolicy.builder().maxAttempts(2).deadline(Duration.ofMillis(300))
            .attemptTimeout(Duration.ofMillis(200)).build()).build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder()).build();
    Request tagged = payment("/payments").newBuilder().tag(IntentTag.class,
        IntentTag.builder().operation("create-payment").scope("tenant-a").businessId("order-11")
            .build()).build();

    assertThatThrownBy(() -> app.newCall(tagged).execute())
        .isInstanceOf(IntentIOException.class)
        .hasCauseInstanceOf(IntentPendingException.class);
    IntentRecord record = store.findByBusinessId("tenant-a", "create-payment", "order-11")
        .orElseThrow();
    assertThat(record.state()).isEqualTo(IntentState.PENDING);
    assertThat(record.reason()).startsWith(PendingReason.OFFLINE.name());
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void an_app_interceptor_that_throws_inside_ours_ends_the_call_with_an_io_exception()
      throws Exception {
    IdempotencyInterceptor oncely = interceptor(1).build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder())
        .addInterceptor(chain -> {
          throw new IllegalStateException("a broken app interceptor");
        })
        .build();
    Request tagged = payment("/payments").newBuilder().tag(IntentTag.class,
        IntentTag.builder().operation("create-payment").scope("tenant-a").businessId("order-12")
            .build()).build();

    assertThatThrownBy(() -> app.newCall(tagged).execute()).isInstanceOf(IOException.class);
    IntentRecord record = store.findByBusinessId("tenant-a", "create-payment", "order-12")
        .orElseThrow();
    assertThat(record.state()).isEqualTo(IntentState.PENDING);
  }

  @Test
  void a_resume_of_the_intent_api_joins_an_intent_an_interceptor_call_is_driving()
      throws Exception {
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}")
        .headersDelay(800, TimeUnit.MILLISECONDS).build());
    server.enqueue(created());
    IdempotencyInterceptor oncely = interceptor(1).build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder()).build();
    Request tagged = payment("/payments").newBuilder().tag(IntentTag.class,
        IntentTag.builder().operation("create-payment").scope("tenant-a").businessId("order-13")
            .build()).build();
    CompletableFuture<Integer> call = CompletableFuture.supplyAsync(() -> {
      try (Response response = app.newCall(tagged).execute()) {
        return response.code();
      } catch (IOException e) {
        return -1;
      }
    });
    assertThat(server.takeRequest(5, TimeUnit.SECONDS)).isNotNull();
    IntentRecord inFlight = store.findByBusinessId("tenant-a", "create-payment", "order-13")
        .orElseThrow();

    try (IdempotentClient client = client(1).build()) {
      IntentOutcome resumed = client.resume(inFlight.id()).get(5, TimeUnit.SECONDS);

      // One drive per intent in the process: the resume waits for the call's drive and shares
      // its outcome; it sends nothing of its own.
      assertThat(resumed).isInstanceOfSatisfying(IntentOutcome.Completed.class,
          c -> assertThat(c.response().status()).isEqualTo(201));
    }
    assertThat(call.get(5, TimeUnit.SECONDS)).isEqualTo(201);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void a_status_url_with_user_info_is_stored_and_polled_without_it() throws Exception {
    String withUserInfo = server.url("/status/1").newBuilder().username("svc").password("pw")
        .build().toString();
    server.enqueue(new MockResponse.Builder().code(202).addHeader("Location", withUserInfo)
        .build());
    try (IdempotentClient client = client(1).build()) {
      IntentOutcome outcome = client.execute(spec("order-14"));

      assertThat(outcome).isInstanceOf(IntentOutcome.Pending.class);
      IntentRecord record = store.get(outcome.id()).orElseThrow();
      assertThat(record.pollUrl()).isEqualTo(server.url("/status/1").toString());
    }
  }
}
