package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.event.EventCounter;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.client.testing.Wiring;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A bodyless intent (a {@code DELETE} that voids an authorization) is counted on every request
 * that reaches the network, whoever sent it: the server takes its effect and drops the connection
 * (HTTP/1.1) or resets the stream (h2), OkHttp may resend it by itself on a pooled client, and the
 * {@code 404} that follows is an answer to a repeated delivery, never a final refusal. A client
 * that would resend it unseen is refused before anything is stored or sent.
 */
class BodylessIntentTest {
  private static final Instant T0 = Instant.parse("2026-12-02T08:00:00Z");
  /** HTTP/2's INTERNAL_ERROR code. */
  private static final int INTERNAL_ERROR = 2;

  private final MockWebServer server = new MockWebServer();
  private final ManualClock clock = new ManualClock(T0);
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private final IntentTag tag = IntentTag.builder().operation("void-authorization")
      .scope("tenant-7").businessId("auth_1").build();

  @AfterEach
  void stop() {
    server.close();
  }

  /** Every event the interceptor emitted, in order. */
  private final List<IntentEvent> events = new CopyOnWriteArrayList<>();

  private IdempotencyInterceptor interceptor() {
    return IdempotencyInterceptor.builder().store(store).clock(clock).listener(events::add)
        .sleeper(new RecordingSleeper(clock))
        .retryPolicy(RetryPolicy.builder().maxAttempts(10).baseDelay(Duration.ofMillis(10))
            .attemptTimeout(Duration.ofSeconds(2)).deadline(Duration.ofMinutes(5)).build())
        .build();
  }

  private static OkHttpClient client(IdempotencyInterceptor interceptor, Protocol protocol,
      Wiring wiring) {
    return wiring.wire(interceptor, new OkHttpClient.Builder().protocols(List.of(protocol)))
        .build();
  }

  private void start(Protocol protocol) throws IOException {
    server.setProtocols(List.of(protocol));
    server.start();
  }

  private Request voidAuthorization() {
    return new Request.Builder().url(server.url("/authorizations/auth_1")).delete()
        .tag(IntentTag.class, tag).build();
  }

  /** The effect is taken, then the connection (or the h2 stream) dies before any answer. */
  private static MockResponse tookEffectThenDropped(Protocol protocol) {
    SocketEffect drop = protocol == Protocol.H2_PRIOR_KNOWLEDGE
        ? new SocketEffect.CloseStream(INTERNAL_ERROR)
        : new SocketEffect.CloseSocket(true, true, true);
    return new MockResponse.Builder().code(204).onResponseStart(drop).build();
  }

  private List<RecordedRequest> deletes() throws InterruptedException {
    List<RecordedRequest> all = new ArrayList<>();
    for (int i = 0; i < server.getRequestCount(); i++) {
      RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
      if (request.getMethod().equals("DELETE")) {
        all.add(request);
      }
    }
    return all;
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("dev.oncely.client.testing.Wiring#withProtocols")
  void a_delete_resent_after_its_effect_ends_pending_and_every_request_on_the_wire_is_counted(
      Protocol protocol, Wiring wiring) throws Exception {
    start(protocol);
    OkHttpClient client = client(interceptor(), protocol, wiring);
    server.enqueue(new MockResponse.Builder().code(200).body("warm").build());
    try (Response warm = client.newCall(new Request.Builder().url(server.url("/warm")).build())
        .execute()) {
      assertThat(warm.body().string()).isEqualTo("warm");
    }
    server.enqueue(tookEffectThenDropped(protocol));
    for (int i = 0; i < 10; i++) {
      server.enqueue(new MockResponse.Builder().code(404).build());
    }

    assertThatThrownBy(() -> client.newCall(voidAuthorization()).execute().close())
        .isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(IntentPendingException.class);

    IntentRecord record = store.findByBusinessId("tenant-7", "void-authorization", "auth_1")
        .orElseThrow();
    assertThat(record.state()).isEqualTo(IntentState.PENDING);
    assertThat(record.reason()).contains("AMBIGUOUS_ANSWER");
    assertThat(record.maybeDelivered()).isTrue();
    List<RecordedRequest> deletes = deletes();
    assertThat(deletes).extracting(r -> r.getHeaders().get("Idempotency-Key")).doesNotContainNull()
        .containsOnly(deletes.get(0).getHeaders().get("Idempotency-Key"));
    assertThat(record.attempts()).as("requests on the wire, each a counted attempt")
        .isEqualTo(deletes.size());
    assertThat(events.stream().filter(e -> e instanceof IntentEvent.AttemptStarted)
        .map(e -> ((IntentEvent.AttemptStarted) e).attempt()))
        .as("one attempt event per request on the wire, numbered as the record counts them")
        .containsExactlyElementsOf(IntStream.rangeClosed(1, deletes.size()).boxed().toList());
    assertThat(events.stream().filter(e -> e instanceof IntentEvent.AttemptEnded)
        .map(e -> ((IntentEvent.AttemptEnded) e).attempt()))
        .as("each attempt ends once")
        .containsExactlyElementsOf(IntStream.rangeClosed(1, deletes.size()).boxed().toList());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void a_silent_resend_is_an_attempt_in_the_record_the_events_and_the_meters(Protocol protocol)
      throws Exception {
    start(protocol);
    EventCounter counter = new EventCounter();
    IdempotencyInterceptor interceptor = IdempotencyInterceptor.builder().store(store)
        .clock(clock).sleeper(new RecordingSleeper(clock))
        .listener(IntentListener.all(events::add, counter)).build();
    OkHttpClient client = client(interceptor, protocol, Wiring.INSTALL_ON);
    server.enqueue(new MockResponse.Builder().code(200).body("warm").build());
    try (Response warm = client.newCall(new Request.Builder().url(server.url("/warm")).build())
        .execute()) {
      assertThat(warm.body().string()).isEqualTo("warm");
    }
    server.enqueue(tookEffectThenDropped(protocol));
    server.enqueue(new MockResponse.Builder().code(204).build());

    try (Response response = client.newCall(voidAuthorization()).execute()) {
      assertThat(response.code()).isEqualTo(204);
    }

    IntentRecord record = store.findByBusinessId("tenant-7", "void-authorization", "auth_1")
        .orElseThrow();
    List<RecordedRequest> deletes = deletes();
    assertThat(deletes).as("OkHttp resent the DELETE on a new connection by itself").hasSize(2);
    assertThat(record.attempts()).isEqualTo(2);
    assertThat(counter.attempts()).as("attempt events").isEqualTo(2);
    assertThat(events).filteredOn(e -> e instanceof IntentEvent.AttemptEnded)
        .extracting(e -> ((IntentEvent.AttemptEnded) e).failure())
        .containsExactly(IntentEvent.AttemptEnded.RESENT_BY_CLIENT, null);
  }

  static Stream<Protocol> protocols() {
    return Stream.of(Protocol.HTTP_1_1, Protocol.H2_PRIOR_KNOWLEDGE);
  }

  @Test
  void a_client_that_would_resend_a_bodyless_intent_unseen_is_refused_before_anything_is_stored()
      throws Exception {
    start(Protocol.HTTP_1_1);
    OkHttpClient client = new OkHttpClient.Builder().addInterceptor(interceptor())
        .followRedirects(false).build();

    assertThatThrownBy(() -> client.newCall(voidAuthorization()).execute().close())
        .isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("retryOnConnectionFailure")
        .hasMessageContaining("installOn(builder)");

    assertThat(server.getRequestCount()).isZero();
    assertThat(store.findByBusinessId("tenant-7", "void-authorization", "auth_1")).isEmpty();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("dev.oncely.client.testing.Wiring#withProtocols")
  void a_delete_refused_on_its_first_delivery_is_rejected(Protocol protocol, Wiring wiring)
      throws Exception {
    start(protocol);
    OkHttpClient client = client(interceptor(), protocol, wiring);
    server.enqueue(new MockResponse.Builder().code(404).build());

    try (Response response = client.newCall(voidAuthorization()).execute()) {
      assertThat(response.code()).isEqualTo(404);
    }

    IntentRecord record = store.findByBusinessId("tenant-7", "void-authorization", "auth_1")
        .orElseThrow();
    assertThat(record.state()).isEqualTo(IntentState.REJECTED);
    assertThat(record.attempts()).isEqualTo(1);
    assertThat(deletes()).hasSize(1);
  }
}
