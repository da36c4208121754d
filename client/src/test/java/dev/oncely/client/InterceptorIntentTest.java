package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.testing.Fault;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The interceptor keeps its promise across restarts for requests tagged with an {@link IntentTag}:
 * record and key durable before the first send, the same key for the same business id after a
 * restart, a changed body refused before I/O, a finished intent answered from the store, and a
 * resume through the app's own client. A "restart" is a new interceptor and a new OkHttpClient on
 * the same store.
 */
class InterceptorIntentTest {
  private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");
  private static final String BODY = "{\"amount\":1000,\"currency\":\"JPY\"}";

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final InMemoryIntentStore store = new InMemoryIntentStore();

  private IdempotencyInterceptor interceptor() {
    return IdempotencyInterceptor.builder().store(store).clock(clock).sleeper(sleeper)
        .retryPolicy(RetryPolicy.builder().maxAttempts(2).baseDelay(Duration.ofMillis(50))
            .attemptTimeout(Duration.ofMillis(1000)).deadline(Duration.ofMinutes(1)).build())
        .build();
  }

  /** The app's client: its own auth interceptor first, then ours. */
  private static OkHttpClient appClient(IdempotencyInterceptor interceptor) {
    return new OkHttpClient.Builder()
        .addInterceptor(chain -> chain.proceed(chain.request().newBuilder()
            .header("Authorization", "Bearer fresh").build()))
        .addInterceptor(interceptor)
        .addNetworkInterceptor(interceptor.networkInterceptor())
        .build();
  }

  private Request payment(String body) {
    return new Request.Builder().url(server.url("/payments"))
        .tag(IntentTag.class, IntentTag.builder().operation("create-payment").scope("tenant-42")
            .businessId("order-7").build())
        .post(RequestBody.create(body, MediaType.get("application/json")))
        .build();
  }

  private Request tagged(IntentTag tag, String body) {
    return new Request.Builder().url(server.url("/payments")).tag(IntentTag.class, tag)
        .post(RequestBody.create(body, MediaType.get("application/json"))).build();
  }

  private static MockResponse stall() {
    return Fault.stallAfterCommit().applyTo(new MockResponse.Builder().code(201)).build();
  }

  private static MockResponse created() {
    return new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}").build();
  }

  private List<RecordedRequest> taken() throws InterruptedException {
    List<RecordedRequest> all = new CopyOnWriteArrayList<>();
    for (int i = 0; i < server.getRequestCount(); i++) {
      all.add(server.takeRequest(5, TimeUnit.SECONDS));
    }
    return all;
  }

  @Test
  void a_tagged_call_reissued_after_a_restart_gets_the_same_key_and_completes_once()
      throws Exception {
    server.enqueue(stall());
    server.enqueue(stall());
    assertThatThrownBy(() -> appClient(interceptor()).newCall(payment(BODY)).execute())
        .isInstanceOf(IOException.class);
    IntentRecord pending = store.listUnfinished().get(0);
    assertThat(pending.businessId()).isEqualTo("order-7");
    assertThat(pending.state()).isEqualTo(IntentState.PENDING);

    server.enqueue(created());
    try (Response response = appClient(interceptor()).newCall(payment(BODY)).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }

    List<RecordedRequest> requests = taken();
    assertThat(requests).hasSize(3);
    assertThat(requests).extracting(r -> r.getHeaders().get("Idempotency-Key"))
        .containsOnly("\"" + pending.id().key() + "\"");
    assertThat(store.get(pending.id()).orElseThrow().state()).isEqualTo(IntentState.COMPLETED);
  }

  /** The interceptor path goes through the same identifier validation as the intent API. */
  @Test
  void a_request_the_record_cannot_hold_is_an_invalid_intent_before_any_io() throws Exception {
    Request colonName = payment(BODY).newBuilder().header("X-Note:x", "v").build();
    Request userInfo = payment(BODY).newBuilder()
        .url(server.url("/payments").newBuilder().username("alice").password("pw").build())
        .build();
    for (Request request : List.of(colonName, userInfo)) {
      assertThatThrownBy(() -> appClient(interceptor()).newCall(request).execute())
          .as(request.toString())
          .isInstanceOf(IntentIOException.class)
          .hasCauseInstanceOf(InvalidIntentException.class);
    }
    assertThatThrownBy(() -> IntentTag.builder().businessId("order-\uD800"))
        .isInstanceOf(InvalidIntentException.class);
    assertThat(server.getRequestCount()).isZero();
    assertThat(store.listUnfinished()).isEmpty();
  }

  @Test
  void a_changed_body_under_a_known_business_id_is_refused_before_any_io() throws Exception {
    server.enqueue(created());
    appClient(interceptor()).newCall(payment(BODY)).execute().close();

    assertThatThrownBy(() -> appClient(interceptor()).newCall(payment("{\"amount\":5}")).execute())
        .isInstanceOf(IntentIOException.class)
        .hasCauseInstanceOf(PayloadMismatchException.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  /** One fingerprint policy; the tag names volatile fields as the intent API does. */
  @Test
  void a_volatile_field_named_by_the_tag_may_change_and_the_reissue_is_the_same_intent()
      throws Exception {
    IntentTag tag = IntentTag.builder().operation("create-payment").scope("tenant-42")
        .businessId("order-7").volatileFields("sentAt", "/meta/trace").build();
    server.enqueue(created());
    appClient(interceptor()).newCall(tagged(tag,
        "{\"amount\":1000,\"sentAt\":\"08:00\",\"meta\":{\"trace\":\"a\"}}")).execute().close();

    try (Response again = appClient(interceptor()).newCall(tagged(tag,
        "{\"meta\":{\"trace\":\"b\"},\"sentAt\":\"08:05\",\"amount\":1000.0}")).execute()) {
      assertThat(again.header(IdempotencyInterceptor.STORED_RESPONSE_HEADER)).isEqualTo("true");
    }
    assertThatThrownBy(() -> appClient(interceptor()).newCall(tagged(tag,
        "{\"amount\":999,\"sentAt\":\"08:00\"}")).execute())
        .isInstanceOf(IntentIOException.class)
        .hasCauseInstanceOf(PayloadMismatchException.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  /** A tag's own retry policy drives its intent and is stored with the record. */
  @Test
  void a_tags_own_retry_policy_drives_the_intent_instead_of_the_interceptors() throws Exception {
    RetryPolicy patient = RetryPolicy.builder().maxAttempts(4).baseDelay(Duration.ofMillis(10))
        .deadline(Duration.ofMinutes(1)).attemptTimeout(Duration.ofMillis(1000)).build();
    IntentTag tag = IntentTag.builder().operation("create-payment").scope("tenant-42")
        .businessId("order-9").retryPolicy(patient).build();
    server.enqueue(new MockResponse.Builder().code(503).build());
    server.enqueue(new MockResponse.Builder().code(503).build());
    server.enqueue(created());

    try (Response response = appClient(interceptor()).newCall(tagged(tag, BODY)).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }
    assertThat(server.getRequestCount()).isEqualTo(3);
    assertThat(store.findByBusinessId("tenant-42", "create-payment", "order-9").orElseThrow()
        .retryPolicy()).isEqualTo(patient);
  }

  /**
   * The app's client with both halves ({@code installOn}), or a plain one with the application
   * half only (no redirects, no silent resends).
   */
  private static OkHttpClient appClient(IdempotencyInterceptor interceptor, boolean installOn) {
    if (installOn) {
      return appClient(interceptor);
    }
    return new OkHttpClient.Builder().addInterceptor(interceptor).followRedirects(false)
        .retryOnConnectionFailure(false).build();
  }

  /** A stream of unknown length is read in bounded memory and refused past the limit. */
  @ParameterizedTest(name = "installOn {0}")
  @ValueSource(booleans = {true, false})
  void a_stream_of_unknown_length_past_the_limit_is_refused_after_reading_at_most_the_limit(
      boolean installOn) throws Exception {
    java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
    RequestBody endless = new RequestBody() {
      @Override
      public MediaType contentType() {
        return MediaType.get("application/octet-stream");
      }

      @Override
      public void writeTo(okio.BufferedSink sink) throws IOException {
        byte[] chunk = new byte[8192];
        for (long i = 0; i < 300L * 1024 * 1024 / chunk.length; i++) {
          sink.write(chunk);
          written.addAndGet(chunk.length);
        }
      }
    };
    Request upload = new Request.Builder().url(server.url("/files")).tag(IntentTag.class,
        IntentTag.builder().operation("upload").scope("tenant-42").build()).post(endless).build();

    assertThatThrownBy(() -> appClient(interceptor(), installOn).newCall(upload).execute())
        .isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(BodyTooLargeException.class)
        .hasMessageContaining("no declared length");
    assertThat(written.get()).isLessThanOrEqualTo(IntentSpec.DEFAULT_MAX_BODY_BYTES
        + 64 * 1024);
    assertThat(server.getRequestCount()).isZero();
    assertThat(store.listUnfinished()).isEmpty();
  }

  /** A duplex body cannot be held before the first send, so it is refused, not emptied. */
  @ParameterizedTest(name = "installOn {0}")
  @ValueSource(booleans = {true, false})
  void a_duplex_body_is_refused_before_anything_is_stored_or_sent(boolean installOn)
      throws Exception {
    RequestBody duplex = new RequestBody() {
      @Override
      public MediaType contentType() {
        return MediaType.get("application/json");
      }

      @Override
      public boolean isDuplex() {
        return true;
      }

      @Override
      public void writeTo(okio.BufferedSink sink) throws IOException {
        sink.writeUtf8(BODY);
      }
    };
    Request request = payment(BODY).newBuilder().post(duplex).build();

    assertThatThrownBy(() -> appClient(interceptor(), installOn).newCall(request).execute())
        .isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(InvalidIntentException.class)
        .hasMessageContaining("duplex");
    assertThat(server.getRequestCount()).isZero();
    assertThat(store.listUnfinished()).isEmpty();
  }

  /** Malformed JSON is refused by both entry points, never hashed as bytes. */
  @Test
  void a_body_declared_json_but_malformed_is_an_invalid_intent_before_any_io() throws Exception {
    assertThatThrownBy(() -> appClient(interceptor()).newCall(payment("{\"amount\":")).execute())
        .isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(InvalidIntentException.class)
        .hasMessageContaining("not one well-formed JSON value");
    IntentTag volatileOnBytes = IntentTag.builder().operation("upload").scope("tenant-42")
        .volatileFields("sentAt").build();
    Request bytes = new Request.Builder().url(server.url("/files")).tag(IntentTag.class,
        volatileOnBytes).post(RequestBody.create("raw", MediaType.get("text/plain"))).build();
    assertThatThrownBy(() -> appClient(interceptor()).newCall(bytes).execute())
        .isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(InvalidIntentException.class)
        .hasMessageContaining("need a JSON body");
    assertThat(server.getRequestCount()).isZero();
    assertThat(store.listUnfinished()).isEmpty();
  }

  @Test
  void a_finished_intent_is_answered_from_the_store_without_io() throws Exception {
    server.enqueue(created());
    appClient(interceptor()).newCall(payment(BODY)).execute().close();

    try (Response again = appClient(interceptor()).newCall(payment(BODY)).execute()) {
      assertThat(again.code()).isEqualTo(201);
      assertThat(again.header(IdempotencyInterceptor.STORED_RESPONSE_HEADER)).isEqualTo("true");
      assertThat(again.body().string()).isEqualTo("{\"id\":\"pay_1\"}");
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void a_finished_intent_whose_record_lost_its_response_is_never_sent_again() throws Exception {
    server.enqueue(created());
    appClient(interceptor()).newCall(payment(BODY)).execute().close();
    IntentRecord done = store.findByBusinessId("tenant-42", "create-payment", "order-7")
        .orElseThrow();
    assertThat(store.compareAndSet(done, done.successor().lastResponse(null).build())).isTrue();

    assertThatThrownBy(() -> appClient(interceptor()).newCall(payment(BODY)).execute())
        .isInstanceOf(IntentIOException.class)
        .hasRootCauseMessage("record " + done.id() + " is COMPLETED but holds no response to"
            + " answer with; it is not sent again");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void the_record_is_durable_before_the_first_byte_is_sent() throws Exception {
    server.setDispatcher(new mockwebserver3.Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        List<IntentRecord> seen = store.listUnfinished();
        return new MockResponse.Builder().code(seen.size() == 1 ? 201 : 500).build();
      }
    });

    try (Response response = appClient(interceptor()).newCall(payment(BODY)).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }
  }

  @Test
  void resume_after_a_restart_goes_through_the_apps_own_client_and_its_credentials()
      throws Exception {
    server.enqueue(stall());
    server.enqueue(stall());
    assertThatThrownBy(() -> appClient(interceptor()).newCall(payment(BODY)).execute())
        .isInstanceOf(IOException.class);

    server.enqueue(created());
    IdempotencyInterceptor afterRestart = interceptor();
    List<IntentOutcome> told = new CopyOnWriteArrayList<>();
    List<IntentOutcome> outcomes = afterRestart.resumePending(appClient(afterRestart), told::add)
        .stream().map(f -> f.orTimeout(10, TimeUnit.SECONDS).join()).toList();

    assertThat(outcomes).singleElement().isInstanceOf(IntentOutcome.Completed.class);
    assertThat(told).hasSize(1);
    List<RecordedRequest> requests = taken();
    RecordedRequest resumed = requests.get(2);
    assertThat(resumed.getHeaders().get("Authorization")).isEqualTo("Bearer fresh");
    assertThat(resumed.getBody().utf8()).isEqualTo(BODY);
    assertThat(resumed.getHeaders().get("Idempotency-Key"))
        .isEqualTo(requests.get(0).getHeaders().get("Idempotency-Key"));
  }

  @Test
  void a_record_of_the_intent_api_is_resumed_by_the_interceptor_with_its_key_as_first_sent()
      throws Exception {
    server.enqueue(stall());
    server.enqueue(stall());
    IntentSpec spec = IntentSpec.builder().operation("create-payment").scope("tenant-42")
        .post(server.url("/payments").toString()).jsonBody(BODY).build();
    try (IdempotentClient client = IdempotentClient.builder().store(store).clock(clock)
        .sleeper(sleeper).dialect(Dialects.stripe()).retryPolicy(RetryPolicy.builder()
            .maxAttempts(2).attemptTimeout(Duration.ofMillis(1000)).build()).build()) {
      assertThat(client.execute(spec)).isInstanceOf(IntentOutcome.Pending.class);
    }

    server.enqueue(created());
    IdempotencyInterceptor ietf = interceptor();
    IntentOutcome outcome = ietf.resumePending(appClient(ietf), o -> { }).get(0)
        .get(10, TimeUnit.SECONDS);

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    List<RecordedRequest> requests = taken();
    assertThat(requests.get(2).getHeaders().get("Idempotency-Key")).isEqualTo(spec.key());
  }

  @Test
  void a_record_of_the_interceptor_is_resumed_by_the_intent_api() throws Exception {
    server.enqueue(stall());
    server.enqueue(stall());
    assertThatThrownBy(() -> appClient(interceptor()).newCall(payment(BODY)).execute())
        .isInstanceOf(IOException.class);

    server.enqueue(created());
    try (IdempotentClient client = IdempotentClient.builder().store(store).clock(clock)
        .sleeper(sleeper).build()) {
      assertThat(client.resumePending().get(0).get(10, TimeUnit.SECONDS))
          .isInstanceOf(IntentOutcome.Completed.class);
    }
    List<RecordedRequest> requests = taken();
    assertThat(requests.get(2).getHeaders().get("Idempotency-Key"))
        .isEqualTo(requests.get(0).getHeaders().get("Idempotency-Key"));
  }

  @Test
  void a_maybe_delivered_record_past_the_key_retention_is_not_resent_by_a_reissued_call()
      throws Exception {
    server.enqueue(stall());
    server.enqueue(stall());
    assertThatThrownBy(() -> appClient(interceptor()).newCall(payment(BODY)).execute())
        .isInstanceOf(IOException.class);
    clock.advance(Dialects.ietf().keyRetention().plusMinutes(1));

    assertThatThrownBy(() -> appClient(interceptor()).newCall(payment(BODY)).execute())
        .isInstanceOf(IntentIOException.class)
        .hasCauseInstanceOf(NeedsReconciliationException.class);
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(store.listUnfinished().get(0).state())
        .isEqualTo(IntentState.NEEDS_RECONCILIATION);
  }

  @Test
  void an_untagged_call_keeps_todays_per_call_key() throws Exception {
    server.enqueue(created());
    server.enqueue(created());
    OkHttpClient http = appClient(interceptor());
    Request untagged = new Request.Builder().url(server.url("/payments"))
        .post(RequestBody.create(BODY, MediaType.get("application/json"))).build();
    http.newCall(untagged).execute().close();
    http.newCall(untagged).execute().close();

    List<RecordedRequest> requests = taken();
    assertThat(requests.get(0).getHeaders().get("Idempotency-Key"))
        .isNotEqualTo(requests.get(1).getHeaders().get("Idempotency-Key"));
  }

  @Test
  void a_due_work_scheduler_drives_pending_tagged_intents_through_the_apps_client()
      throws Exception {
    server.enqueue(stall());
    server.enqueue(stall());
    IdempotencyInterceptor interceptor = interceptor();
    OkHttpClient app = appClient(interceptor);
    assertThatThrownBy(() -> app.newCall(payment(BODY)).execute()).isInstanceOf(IOException.class);
    IntentRecord pending = store.listUnfinished().get(0);

    server.enqueue(created());
    try (DueWorkScheduler scheduler = DueWorkScheduler.builder(interceptor, app)
        .interval(Duration.ofMillis(50)).clock(java.time.Clock.offset(java.time.Clock.systemUTC(),
            Duration.between(Instant.now(), T0.plus(Duration.ofHours(1)))))
        .build()) {
      scheduler.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (store.get(pending.id()).orElseThrow().state() != IntentState.COMPLETED) {
        assertThat(System.nanoTime()).as("never driven again").isLessThan(deadline);
        TimeUnit.MILLISECONDS.sleep(20);
      }
    }
    List<RecordedRequest> requests = taken();
    assertThat(requests).hasSize(3);
    assertThat(requests.get(2).getHeaders().get("Authorization")).isEqualTo("Bearer fresh");
    assertThat(requests.get(2).getHeaders().get("Idempotency-Key"))
        .isEqualTo(requests.get(0).getHeaders().get("Idempotency-Key"));
  }

  @Test
  void the_apps_client_never_resends_a_written_intent_behind_the_interceptor() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200).body("warm").build());
    server.enqueue(Fault.dropAfterCommit().applyTo(new MockResponse.Builder().code(201)).build());
    server.enqueue(created());
    IdempotencyInterceptor oneAttempt = IdempotencyInterceptor.builder().store(store).clock(clock)
        .sleeper(sleeper).retryPolicy(RetryPolicy.builder().maxAttempts(1)
            .attemptTimeout(Duration.ofSeconds(5)).build()).build();
    // The app's client keeps OkHttp's default retryOnConnectionFailure(true).
    OkHttpClient app = oneAttempt.installOn(new OkHttpClient.Builder()).build();
    // A pooled connection: OkHttp retries a failure on a reused connection by itself.
    app.newCall(new Request.Builder().url(server.url("/health")).build()).execute().close();

    assertThatThrownBy(() -> app.newCall(payment(BODY)).execute())
        .isInstanceOf(IOException.class);

    assertThat(server.getRequestCount()).as("the body is one-shot: OkHttp did not resend it")
        .isEqualTo(2);
    IntentRecord record = store.listUnfinished().get(0);
    assertThat(record.state()).isEqualTo(IntentState.PENDING);
    assertThat(record.maybeDelivered()).isTrue();
  }
}
