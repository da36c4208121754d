package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A finished intent is never sent again, so its record drops the request (body and stored headers)
 * and keeps what a repeat needs: identity, fingerprint, a digest of the bytes sent, the outcome
 * and the stored response. A repeat is then answered exactly as before (same payload: the stored
 * outcome, no request; another payload: the mismatch, no request), from both entry points; an
 * unfinished record keeps its request (it may be sent again); an app that asks keeps it for audit.
 */
class FinishedRecordsKeepWhatARepeatNeedsTest {
  private static final Instant T0 = Instant.parse("2026-12-06T09:00:00Z");
  private static final String BODY = "{\"order\":\"order-7\",\"amount\":1000,\"at\":\"09:00\"}";
  private static final String SAME_BUT_TIME = "{\"order\":\"order-7\",\"amount\":1000,\"at\":\"09:05\"}";
  private static final String OTHER = "{\"order\":\"order-7\",\"amount\":2000,\"at\":\"09:00\"}";

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private final List<IdempotentClient> clients = new ArrayList<>();

  @AfterEach
  void closeClients() {
    clients.forEach(IdempotentClient::close);
  }

  private IdempotentClient client(boolean keepFinishedRequests) {
    IdempotentClient client = IdempotentClient.builder().store(store).clock(clock)
        .sleeper(sleeper).keepFinishedRequests(keepFinishedRequests)
        .retryPolicy(RetryPolicy.builder().maxAttempts(2).baseDelay(Duration.ofMillis(50))
            .attemptTimeout(Duration.ofSeconds(2)).deadline(Duration.ofMinutes(1)).build())
        .build();
    clients.add(client);
    return client;
  }

  private IntentSpec spec(String json) {
    return IntentSpec.builder().operation("create-payment").scope("tenant-42")
        .post(server.url("/payments").toString()).jsonBody(json).businessId("order-7")
        .header("X-Request-Source", "checkout").volatileFields("at").build();
  }

  private static MockResponse answer(int status, String body) {
    return new MockResponse.Builder().code(status).body(body)
        .addHeader("Content-Type", "application/json").build();
  }

  @Test
  void a_completed_intent_keeps_its_outcome_and_drops_its_request() throws Exception {
    server.enqueue(answer(201, "{\"id\":\"p-1\"}"));
    IdempotentClient client = client(false);

    IntentOutcome first = client.execute(spec(BODY));

    IntentRecord stored = store.get(first.id()).orElseThrow();
    assertThat(stored.state()).isEqualTo(IntentState.COMPLETED);
    assertThat(stored.requestDropped()).isTrue();
    assertThat(stored.body()).isEmpty();
    assertThat(stored.headers()).isEmpty();
    assertThat(stored.requestDigest()).hasSize(64);
    assertThat(stored.hasRequestBytes(BODY.getBytes(StandardCharsets.UTF_8))).isTrue();
    assertThat(stored.lastResponse().status()).isEqualTo(201);
    assertThat(stored.fingerprint()).isNotBlank();
    assertThat(stored.businessId()).isEqualTo("order-7");
    assertThat(client.outcomeOf(first.id())).contains(first);
    assertThat(server.takeRequest().getBody().utf8()).isEqualTo(BODY);

    assertThat(client.execute(spec(BODY))).isEqualTo(first);
    assertThat(client.execute(spec(SAME_BUT_TIME))).isEqualTo(first);
    assertThatThrownBy(() -> client.execute(spec(OTHER)))
        .isInstanceOf(PayloadMismatchException.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  /**
   * A record finished under an earlier fingerprint rule holds a fingerprint no payload has today:
   * the digest of its bytes is what recognizes a repeat of the same bytes once the body is gone.
   */
  @Test
  void a_repeat_of_the_same_bytes_matches_by_digest_whatever_the_stored_fingerprint() {
    IntentRecord earlier = IntentRecord.builder().id(IntentId.of("tenant-42", "create-payment",
            "key-from-an-earlier-release"))
        .businessId("order-7").method("POST").url(server.url("/payments").toString())
        .body(BODY.getBytes(StandardCharsets.UTF_8), "application/json; charset=utf-8")
        .fingerprint("00".repeat(32)).state(IntentState.COMPLETED)
        .lastResponse(StoredResponse.of(201, java.util.Map.of(), "{\"id\":\"p-0\"}"
            .getBytes(StandardCharsets.UTF_8)))
        .createdAt(T0).updatedAt(T0).expiresAt(T0.plus(Duration.ofDays(7))).dropRequest()
        .build();
    store.create(earlier);
    IdempotentClient client = client(false);

    IntentOutcome repeat = client.execute(spec(BODY));

    assertThat(repeat).isEqualTo(IntentOutcome.of(earlier));
    assertThatThrownBy(() -> client.execute(spec(SAME_BUT_TIME)))
        .isInstanceOf(PayloadMismatchException.class);
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void a_rejected_intent_drops_its_request_too() throws Exception {
    server.enqueue(answer(400, "{\"error\":\"card_declined\"}"));
    IdempotentClient client = client(false);

    IntentOutcome first = client.execute(spec(BODY));

    assertThat(first.state()).isEqualTo(IntentState.REJECTED);
    assertThat(store.get(first.id()).orElseThrow().requestDropped()).isTrue();
    assertThat(client.execute(spec(BODY))).isEqualTo(first);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void an_unfinished_intent_keeps_its_request_and_is_resent_exactly() throws Exception {
    server.enqueue(answer(503, "{}"));
    server.enqueue(answer(503, "{}"));
    IdempotentClient client = client(false);

    IntentOutcome parked = client.execute(spec(BODY));

    assertThat(parked.state()).isEqualTo(IntentState.PENDING);
    IntentRecord stored = store.get(parked.id()).orElseThrow();
    assertThat(stored.requestDropped()).isFalse();
    assertThat(new String(stored.body(), StandardCharsets.UTF_8)).isEqualTo(BODY);
    assertThat(stored.headers()).containsKey("X-Request-Source");

    server.enqueue(answer(201, "{\"id\":\"p-1\"}"));
    clock.advance(Duration.ofMinutes(2));
    IntentOutcome done = client.execute(spec(BODY));

    assertThat(done.state()).isEqualTo(IntentState.COMPLETED);
    assertThat(store.get(parked.id()).orElseThrow().requestDropped()).isTrue();
    server.takeRequest();
    server.takeRequest();
    assertThat(server.takeRequest().getBody().utf8()).isEqualTo(BODY);
  }

  @Test
  void an_app_that_asks_keeps_the_request_of_finished_intents() throws Exception {
    server.enqueue(answer(201, "{\"id\":\"p-1\"}"));
    IdempotentClient client = client(true);

    IntentOutcome first = client.execute(spec(BODY));

    IntentRecord stored = store.get(first.id()).orElseThrow();
    assertThat(stored.requestDropped()).isFalse();
    assertThat(new String(stored.body(), StandardCharsets.UTF_8)).isEqualTo(BODY);
    assertThat(stored.headers()).containsKey("X-Request-Source");
  }

  @Test
  void the_interceptor_answers_a_repeat_from_a_record_that_dropped_its_request() throws Exception {
    server.enqueue(answer(201, "{\"id\":\"p-1\"}"));
    IdempotencyInterceptor interceptor = IdempotencyInterceptor.builder().store(store)
        .clock(clock).sleeper(sleeper).build();
    OkHttpClient app = interceptor.installOn(new OkHttpClient.Builder()).build();
    IntentTag tag = IntentTag.builder().operation("create-payment").scope("tenant-42")
        .businessId("order-7").build();

    String firstBody;
    try (Response first = app.newCall(payment(tag, BODY)).execute()) {
      assertThat(first.code()).isEqualTo(201);
      firstBody = first.body().string();
    }
    IntentRecord stored = store.findByBusinessId("tenant-42", "create-payment", "order-7")
        .orElseThrow();
    assertThat(stored.requestDropped()).isTrue();
    assertThat(stored.body()).isEmpty();

    try (Response again = app.newCall(payment(tag, BODY)).execute()) {
      assertThat(again.code()).isEqualTo(201);
      assertThat(again.body().string()).isEqualTo(firstBody);
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  private Request payment(IntentTag tag, String body) {
    return new Request.Builder().url(server.url("/payments")).tag(IntentTag.class, tag)
        .post(RequestBody.create(body, MediaType.get("application/json"))).build();
  }

  @Test
  void only_a_finished_record_may_drop_its_request() {
    IntentRecord.Builder pending = IntentRecord.builder().id(IntentId.of("s", "op", "k"))
        .method("POST").url("https://api.example.test/p").body(new byte[] {1}, null)
        .fingerprint("ab".repeat(32)).state(IntentState.PENDING).createdAt(T0).updatedAt(T0)
        .expiresAt(T0.plusSeconds(60)).dropRequest();

    assertThatThrownBy(pending::build).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only a finished record drops its request");
    assertThat(pending.state(IntentState.COMPLETED).build().requestDropped()).isTrue();
  }
}
