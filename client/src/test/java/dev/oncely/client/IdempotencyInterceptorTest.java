package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.event.EventCounter;
import dev.oncely.client.internal.http.Scopes;
import dev.oncely.client.testing.AsyncCalls;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.testing.Fault;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyInterceptorTest {
  private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");
  private static final MediaType JSON = MediaType.get("application/json");
  private static final String BODY = "{\"amount\":1000}";

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final EventCounter events = new EventCounter();

  private IdempotencyInterceptor.Builder interceptor() {
    return IdempotencyInterceptor.builder()
        .clock(clock)
        .sleeper(sleeper)
        .listener(events)
        .retryPolicy(RetryPolicy.builder()
            .baseDelay(Duration.ofMillis(100))
            .maxDelay(Duration.ofSeconds(5))
            .attemptTimeout(Duration.ofMillis(500))
            .build());
  }

  private OkHttpClient plainClient(IdempotencyInterceptor interceptor) {
    return interceptor.installOn(new OkHttpClient.Builder()).build();
  }

  private Request post(String body) {
    return new Request.Builder().url(server.url("/orders"))
        .post(RequestBody.create(body, JSON)).build();
  }

  private List<RecordedRequest> requests() throws InterruptedException {
    List<RecordedRequest> all = new ArrayList<>();
    for (int i = 0; i < server.getRequestCount(); i++) {
      all.add(server.takeRequest(5, TimeUnit.SECONDS));
    }
    return all;
  }

  /** A {@code 201} that never arrives: the client's read times out. */
  private static MockResponse stall() {
    return Fault.stallAfterCommit().applyTo(new MockResponse.Builder().code(201)).build();
  }

  private static MockResponse status(int code) {
    return new MockResponse.Builder().code(code).build();
  }

  @Test
  void plain_okhttp_client_retries_with_one_minted_key_and_the_same_bytes() throws Exception {
    server.enqueue(status(503));
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":1}").build());
    OkHttpClient client = plainClient(interceptor().build());

    try (Response response = client.newCall(post(BODY)).execute()) {
      assertThat(response.code()).isEqualTo(201);
      assertThat(response.body().string()).isEqualTo("{\"id\":1}");
    }

    List<RecordedRequest> requests = requests();
    assertThat(requests).hasSize(2);
    String key = requests.get(0).getHeaders().get("Idempotency-Key");
    assertThat(key).matches("\"[A-Za-z0-9_-]{32}\"");
    assertThat(requests).allSatisfy(r -> {
      assertThat(r.getHeaders().get("Idempotency-Key")).isEqualTo(key);
      assertThat(r.getBody().utf8()).isEqualTo(BODY);
    });
    assertThat(events.retries()).isEqualTo(1);
  }

  @Test
  void every_discarded_response_is_closed() throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).body("busy").build());
    server.enqueue(new MockResponse.Builder().code(503).body("busy").build());
    server.enqueue(new MockResponse.Builder().code(201).body("ok").build());
    OkHttpClient client = plainClient(interceptor().build());

    try (Response response = client.newCall(post(BODY)).execute()) {
      assertThat(response.body().string()).isEqualTo("ok");
    }

    assertThat(client.connectionPool().connectionCount())
        .isEqualTo(client.connectionPool().idleConnectionCount());
    assertThat(requests()).extracting(RecordedRequest::getConnectionIndex).containsOnly(0);
  }

  @Test
  void two_calls_get_two_keys() throws Exception {
    server.enqueue(status(201));
    server.enqueue(status(201));
    OkHttpClient client = plainClient(interceptor().build());

    client.newCall(post(BODY)).execute().close();
    client.newCall(post(BODY)).execute().close();

    List<RecordedRequest> requests = requests();
    assertThat(requests.get(0).getHeaders().get("Idempotency-Key"))
        .isNotEqualTo(requests.get(1).getHeaders().get("Idempotency-Key"));
  }

  @Test
  void key_header_set_by_the_app_is_kept_unchanged() throws Exception {
    server.enqueue(status(503));
    server.enqueue(status(201));
    OkHttpClient client = plainClient(interceptor().build());
    Request request = post(BODY).newBuilder().header("Idempotency-Key", "\"order-7-pay\"").build();

    client.newCall(request).execute().close();

    assertThat(requests()).extracting(r -> r.getHeaders().get("Idempotency-Key"))
        .containsExactly("\"order-7-pay\"", "\"order-7-pay\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "\"\"", "   "})
  void a_blank_key_set_by_the_app_is_refused_as_an_io_exception_before_anything_is_sent(
      String header) throws Exception {
    OkHttpClient client = plainClient(interceptor().build());
    Request request = post(BODY).newBuilder().header("Idempotency-Key", header).build();

    assertThatThrownBy(() -> client.newCall(request).execute())
        .isInstanceOf(IntentIOException.class)
        .hasCauseInstanceOf(InvalidIntentException.class)
        .hasMessageContaining("must not be blank");
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void an_overlong_key_set_by_the_app_fails_an_async_call_through_its_callback() throws Exception {
    OkHttpClient client = plainClient(interceptor().build());
    Request request = post(BODY).newBuilder()
        .header("Idempotency-Key", "\"" + "k".repeat(IntentId.MAX_PART_LENGTH + 1) + "\"").build();
    CompletableFuture<IOException> failure = AsyncCalls.failureOf(client.newCall(request));

    assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(IntentIOException.class)
        .hasCauseInstanceOf(InvalidIntentException.class)
        .hasMessageNotContaining("kkkk");
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void methods_outside_the_configured_set_pass_through_untouched() throws Exception {
    server.enqueue(status(503));
    OkHttpClient client = plainClient(interceptor().build());

    try (Response response = client.newCall(new Request.Builder().url(server.url("/orders/1"))
        .build()).execute()) {
      assertThat(response.code()).isEqualTo(503);
    }

    RecordedRequest only = server.takeRequest();
    assertThat(only.getHeaders().get("Idempotency-Key")).isNull();
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void accepted_202_is_followed_to_its_location_inside_the_call() throws Exception {
    server.enqueue(new MockResponse.Builder().code(202).addHeader("Location", "/orders/1/status")
        .build());
    server.enqueue(new MockResponse.Builder().code(200).body("{\"state\":\"done\"}").build());
    OkHttpClient client = plainClient(interceptor().build());

    try (Response response = client.newCall(post(BODY)).execute()) {
      assertThat(response.code()).isEqualTo(200);
      assertThat(response.body().string()).isEqualTo("{\"state\":\"done\"}");
    }

    List<RecordedRequest> requests = requests();
    assertThat(requests).extracting(RecordedRequest::getMethod).containsExactly("POST", "GET");
    assertThat(requests.get(1).getUrl().encodedPath()).isEqualTo("/orders/1/status");
    assertThat(events.accepted()).isEqualTo(1);
  }

  @Test
  void in_progress_409_is_waited_out_with_the_same_key() throws Exception {
    server.enqueue(status(409));
    server.enqueue(status(201));
    OkHttpClient client = plainClient(interceptor().build());

    try (Response response = client.newCall(post(BODY)).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }

    List<RecordedRequest> requests = requests();
    assertThat(requests.get(0).getHeaders().get("Idempotency-Key"))
        .isEqualTo(requests.get(1).getHeaders().get("Idempotency-Key"));
    assertThat(events.inProgress()).isEqualTo(1);
  }

  @Test
  void no_answer_after_the_request_was_written_is_retried_with_the_same_key() throws Exception {
    server.enqueue(stall());
    server.enqueue(status(201));
    OkHttpClient client = plainClient(interceptor().retryPolicy(RetryPolicy.builder()
        .attemptTimeout(Duration.ofMillis(200)).build()).build());

    try (Response response = client.newCall(post(BODY)).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }

    List<RecordedRequest> requests = requests();
    assertThat(requests).hasSize(2);
    assertThat(requests.get(0).getHeaders().get("Idempotency-Key"))
        .isEqualTo(requests.get(1).getHeaders().get("Idempotency-Key"));
  }

  @Test
  void answer_cut_during_its_body_is_retried_with_the_same_key() throws Exception {
    server.enqueue(Fault.truncateBody()
        .applyTo(new MockResponse.Builder().code(201).body("x".repeat(64 * 1024))).build());
    server.enqueue(new MockResponse.Builder().code(201).body("whole").build());
    OkHttpClient client = plainClient(interceptor().build());

    try (Response response = client.newCall(post(BODY)).execute()) {
      assertThat(response.body().string()).isEqualTo("whole");
    }

    List<RecordedRequest> requests = requests();
    assertThat(requests).hasSize(2);
    assertThat(requests.get(0).getHeaders().get("Idempotency-Key"))
        .isEqualTo(requests.get(1).getHeaders().get("Idempotency-Key"));
  }

  @Test
  void empty_retry_budget_without_refill_fails_the_call_fast_with_a_typed_exception() {
    server.enqueue(status(503));
    OkHttpClient client = plainClient(interceptor()
        .retryBudget(RetryBudget.builder().capacity(0).refillPerSecond(0).build()).build());

    assertThatThrownBy(() -> client.newCall(post(BODY)).execute())
        .isInstanceOf(RetryBudgetExhaustedException.class)
        .hasMessageContaining(server.getHostName());
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(sleeper.sleeps()).isEmpty();
  }

  @Test
  void canceled_call_stops_retrying() {
    server.enqueue(status(503));
    server.enqueue(status(201));
    AtomicReference<Call> call = new AtomicReference<>();
    OkHttpClient client = plainClient(interceptor()
        .sleeper(d -> call.get().cancel())
        .build());
    call.set(client.newCall(post(BODY)));

    assertThatThrownBy(() -> call.get().execute()).isInstanceOf(IOException.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(events.gaveUpUnknown()).isEqualTo(1);
  }

  @Test
  void call_timeout_bounds_the_whole_call() {
    server.enqueue(stall());
    IdempotencyInterceptor patient = interceptor().retryPolicy(RetryPolicy.builder()
        .attemptTimeout(Duration.ofSeconds(30)).build()).build();
    // Long enough for the request to reach the server on a loaded machine, far below 30 s.
    OkHttpClient client = patient.installOn(new OkHttpClient.Builder())
        .callTimeout(Duration.ofMillis(1500))
        .build();

    assertThatThrownBy(() -> client.newCall(post(BODY)).execute())
        .isInstanceOf(InterruptedIOException.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void with_a_store_a_repeated_key_is_answered_from_the_store_without_io() throws Exception {
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":1}").build());
    InMemoryIntentStore store = new InMemoryIntentStore();
    OkHttpClient client = plainClient(interceptor().store(store).build());
    Request request = post(BODY).newBuilder().header("Idempotency-Key", "\"k-123\"").build();

    client.newCall(request).execute().close();
    try (Response again = client.newCall(request).execute()) {
      assertThat(again.code()).isEqualTo(201);
      assertThat(again.header(IdempotencyInterceptor.STORED_RESPONSE_HEADER))
          .isEqualTo("true");
      assertThat(again.body().string()).isEqualTo("{\"id\":1}");
    }

    assertThat(server.getRequestCount()).isEqualTo(1);
    IntentId id = IntentId.of(Scopes.ofRequest(request), "POST /orders", "k-123");
    assertThat(store.get(id).orElseThrow().state()).isEqualTo(IntentState.COMPLETED);
  }

  @Test
  void with_a_store_credentials_of_the_request_are_never_recorded() throws Exception {
    server.enqueue(status(201));
    InMemoryIntentStore store = new InMemoryIntentStore();
    // Finished records drop their headers by default: keep them to see what was recorded.
    OkHttpClient client = plainClient(interceptor().store(store).keepFinishedRequests(true)
        .build());
    Request request = post(BODY).newBuilder()
        .header("Idempotency-Key", "\"k-auth\"")
        .header("Authorization", "Bearer secret")
        .header("Cookie", "session=1")
        .header("X-Trace", "t-1")
        .build();

    client.newCall(request).execute().close();

    assertThat(server.takeRequest().getHeaders().get("Authorization")).isEqualTo("Bearer secret");
    IntentId id = IntentId.of(Scopes.ofRequest(request), "POST /orders", "k-auth");
    assertThat(store.get(id).orElseThrow().headers())
        .containsKey("X-Trace")
        .doesNotContainKeys("Authorization", "Cookie", "Idempotency-Key");
  }

  @Test
  void with_a_store_a_changed_body_under_a_used_key_is_refused_before_io() throws Exception {
    server.enqueue(status(201));
    OkHttpClient client = plainClient(interceptor().store(new InMemoryIntentStore()).build());
    Request first = post(BODY).newBuilder().header("Idempotency-Key", "\"k-9\"").build();
    Request changed = post("{\"amount\":5}").newBuilder().header("Idempotency-Key", "\"k-9\"")
        .build();
    client.newCall(first).execute().close();

    assertThatThrownBy(() -> client.newCall(changed).execute())
        .isInstanceOf(IntentIOException.class)
        .hasCauseInstanceOf(PayloadMismatchException.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void attempts_without_an_answer_end_in_an_unknown_outcome_and_a_pending_record()
      throws Exception {
    server.enqueue(stall());
    server.enqueue(stall());
    InMemoryIntentStore store = new InMemoryIntentStore();
    OkHttpClient client = plainClient(interceptor().store(store).retryPolicy(RetryPolicy.builder()
        .maxAttempts(2).attemptTimeout(Duration.ofMillis(150)).build()).build());
    Request request = post(BODY).newBuilder().header("Idempotency-Key", "\"k-stall\"").build();

    // Never a bare SocketTimeoutException: the app can tell the unknown outcome apart.
    assertThatThrownBy(() -> client.newCall(request).execute())
        .isInstanceOfSatisfying(IntentIOException.class, e -> {
          assertThat(e.getCause()).isInstanceOf(IntentPendingException.class);
          assertThat(e.outcome()).get().isInstanceOfSatisfying(IntentOutcome.Pending.class,
              p -> {
                assertThat(p.reason()).isEqualTo(PendingReason.ATTEMPTS_EXHAUSTED);
                assertThat(p.cause()).isInstanceOf(java.net.SocketTimeoutException.class);
              });
          // The last I/O failure is the pending exception's cause, the earlier one suppressed.
          assertThat(e.getCause().getCause()).isInstanceOf(java.net.SocketTimeoutException.class)
              .satisfies(last -> assertThat(last.getSuppressed()).hasSize(1));
        });

    assertThat(server.getRequestCount()).isEqualTo(2);
    IntentId id = IntentId.of(Scopes.ofRequest(request), "POST /orders", "k-stall");
    assertThat(store.get(id).orElseThrow().state()).isEqualTo(IntentState.PENDING);
    assertThat(store.get(id).orElseThrow().attempts()).isEqualTo(2);
    assertThat(events.gaveUpUnknown()).isEqualTo(1);
  }

  @Test
  void body_over_the_limit_fails_before_anything_is_sent() {
    OkHttpClient client = plainClient(interceptor().maxBodyBytes(4).build());

    assertThatThrownBy(() -> client.newCall(post(BODY)).execute())
        .isInstanceOf(IntentIOException.class)
        .hasCauseInstanceOf(BodyTooLargeException.class);
    assertThat(server.getRequestCount()).isZero();
  }
}
