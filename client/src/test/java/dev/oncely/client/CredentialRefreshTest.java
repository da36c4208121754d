package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.client.testing.Wiring;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Authenticator;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The app's own credential refresh keeps working for intents: a {@code 401} (first attempt
 * included) asks the client's {@code Authenticator} (the interceptor) or the {@code
 * HeaderProvider} (the intent API) for fresh credentials once, and the same key and bytes are
 * resent with them. A refusal is final only when refreshing gives nothing new and no earlier
 * attempt can have been delivered.
 */
class CredentialRefreshTest {
  private static final Instant T0 = Instant.parse("2026-12-02T08:00:00Z");
  private static final String BODY = "{\"amount\":1000,\"currency\":\"JPY\"}";

  private final MockWebServer server = new MockWebServer();
  private final ManualClock clock = new ManualClock(T0);
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private final IntentTag tag = IntentTag.builder().operation("create-payment")
      .scope("tenant-7").businessId("order-9").build();

  /** The app's token store: the current token, and how often it was refreshed. */
  private final class Tokens {
    volatile String current = "Bearer old";
    final AtomicInteger refreshes = new AtomicInteger();
    final AtomicInteger asked = new AtomicInteger();

    /**
     * The usual OkHttp authenticator: refreshes only when the refused request carried the current
     * token (another call may have refreshed it already), and gives up on a refreshed one.
     */
    Authenticator authenticator(boolean refreshes) {
      return (route, response) -> {
        asked.incrementAndGet();
        String sent = response.request().header("Authorization");
        if (sent != null && sent.equals(current)) {
          if (!refreshes) {
            return null;
          }
          current = "Bearer new-" + this.refreshes.incrementAndGet();
        }
        return response.request().newBuilder().header("Authorization", current).build();
      };
    }
  }

  private final Tokens tokens = new Tokens();

  @AfterEach
  void stop() {
    server.close();
  }

  private IdempotencyInterceptor interceptor() {
    return IdempotencyInterceptor.builder().store(store).clock(clock)
        .sleeper(new RecordingSleeper(clock)).retryPolicy(policy()).build();
  }

  private static RetryPolicy policy() {
    return RetryPolicy.builder().maxAttempts(8).baseDelay(Duration.ofMillis(10))
        .attemptTimeout(Duration.ofSeconds(2)).deadline(Duration.ofMinutes(5)).build();
  }

  /** The app's client: an auth interceptor that adds the current token, then ours. */
  private OkHttpClient client(Protocol protocol, Wiring wiring, boolean refreshes)
      throws IOException {
    server.setProtocols(List.of(protocol));
    server.start();
    OkHttpClient.Builder builder = new OkHttpClient.Builder().protocols(List.of(protocol))
        .authenticator(tokens.authenticator(refreshes))
        .addInterceptor(chain -> chain.proceed(chain.request().newBuilder()
            .header("Authorization", tokens.current).build()));
    return wiring.wire(interceptor(), builder).build();
  }

  private Request payment() {
    return new Request.Builder().url(server.url("/payments")).tag(IntentTag.class, tag)
        .post(RequestBody.create(BODY, MediaType.get("application/json"))).build();
  }

  private IntentRecord record() {
    return store.findByBusinessId("tenant-7", "create-payment", "order-9").orElseThrow();
  }

  private List<RecordedRequest> taken() throws InterruptedException {
    List<RecordedRequest> all = new ArrayList<>();
    for (int i = 0; i < server.getRequestCount(); i++) {
      all.add(server.takeRequest(5, TimeUnit.SECONDS));
    }
    return all;
  }

  private static MockResponse unauthorized() {
    return new MockResponse.Builder().code(401).addHeader("WWW-Authenticate", "Bearer").build();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("dev.oncely.client.testing.Wiring#withProtocols")
  void a_first_attempt_refused_401_is_resent_with_the_authenticators_fresh_token_and_completes(
      Protocol protocol, Wiring wiring) throws Exception {
    OkHttpClient client = client(protocol, wiring, true);
    server.enqueue(unauthorized());
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}").build());

    try (Response response = client.newCall(payment()).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }

    List<RecordedRequest> requests = taken();
    assertThat(requests).hasSize(2);
    assertThat(requests).extracting(r -> r.getHeaders().get("Authorization"))
        .containsExactly("Bearer old", "Bearer new-1");
    assertThat(requests).extracting(r -> r.getHeaders().get("Idempotency-Key"))
        .containsOnly(requests.get(0).getHeaders().get("Idempotency-Key"));
    assertThat(requests).extracting(r -> r.getBody().utf8()).containsOnly(BODY);
    assertThat(tokens.refreshes).hasValue(1);
    // OkHttp asks the authenticator itself when nothing hides the refusal from it.
    assertThat(tokens.asked).hasValue(wiring == Wiring.INSTALL_ON ? 1 : 2);
    IntentRecord record = record();
    assertThat(record.state()).isEqualTo(IntentState.COMPLETED);
    assertThat(record.attempts()).isEqualTo(2);
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("dev.oncely.client.testing.Wiring#withProtocols")
  void a_401_that_no_refresh_can_answer_is_a_final_refusal_of_the_first_delivery(
      Protocol protocol, Wiring wiring) throws Exception {
    OkHttpClient client = client(protocol, wiring, false);
    server.enqueue(unauthorized());

    try (Response response = client.newCall(payment()).execute()) {
      assertThat(response.code()).isEqualTo(401);
    }

    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(record().state()).isEqualTo(IntentState.REJECTED);
  }

  @Test
  void fresh_tokens_the_server_keeps_refusing_end_rejected_after_the_bounded_renewals()
      throws Exception {
    OkHttpClient client = client(Protocol.HTTP_1_1, Wiring.INSTALL_ON, true);
    for (int i = 0; i < 8; i++) {
      server.enqueue(unauthorized());
    }

    try (Response response = client.newCall(payment()).execute()) {
      assertThat(response.code()).isEqualTo(401);
    }

    // The first delivery and two renewals: each refused attempt proves it had no effect.
    assertThat(server.getRequestCount()).isEqualTo(3);
    assertThat(tokens.refreshes).hasValue(3);
    assertThat(record().state()).isEqualTo(IntentState.REJECTED);
    assertThat(record().attempts()).isEqualTo(3);
  }

  @Test
  void a_401_of_a_status_url_on_another_origin_never_asks_the_authenticator_nor_gets_credentials()
      throws Exception {
    try (MockWebServer foreign = new MockWebServer()) {
      foreign.start();
      OkHttpClient client = client(Protocol.HTTP_1_1, Wiring.INSTALL_ON, true);
      server.enqueue(new MockResponse.Builder().code(202)
          .addHeader("Location", foreign.url("/status/p-1").toString()).build());
      foreign.enqueue(unauthorized());
      foreign.enqueue(new MockResponse.Builder().code(200).body("{\"id\":\"pay_1\"}").build());

      try (Response response = client.newCall(payment()).execute()) {
        assertThat(response.code()).isEqualTo(200);
      }

      assertThat(tokens.asked).as("the authenticator is never asked for another origin")
          .hasValue(0);
      RecordedRequest refused = foreign.takeRequest(5, TimeUnit.SECONDS);
      RecordedRequest polledAgain = foreign.takeRequest(5, TimeUnit.SECONDS);
      assertThat(List.of(refused, polledAgain)).extracting(r -> r.getHeaders().get("Authorization"))
          .containsOnlyNulls();
      assertThat(record().state()).isEqualTo(IntentState.COMPLETED);
    }
  }

  @Test
  void a_proxy_407_asks_the_proxy_authenticator_and_resends_through_the_proxy() throws Exception {
    server.start();
    List<String> proxyCredentials = new CopyOnWriteArrayList<>();
    OkHttpClient client = interceptor().installOn(new OkHttpClient.Builder()
            .proxy(server.getProxyAddress())
            .proxyAuthenticator((route, response) -> {
              proxyCredentials.add(route == null ? "no route" : route.proxy().type().name());
              return response.request().newBuilder()
                  .header("Proxy-Authorization", "Basic cHJveHk6c2VjcmV0").build();
            }))
        .build();
    server.enqueue(new MockResponse.Builder().code(407)
        .addHeader("Proxy-Authenticate", "Basic realm=\"proxy\"").build());
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}").build());
    Request request = new Request.Builder().url("http://api.example.test/payments")
        .tag(IntentTag.class, tag)
        .post(RequestBody.create(BODY, MediaType.get("application/json"))).build();

    try (Response response = client.newCall(request).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }

    List<RecordedRequest> requests = taken();
    assertThat(requests).extracting(r -> r.getHeaders().get("Proxy-Authorization"))
        .containsExactly(null, "Basic cHJveHk6c2VjcmV0");
    assertThat(proxyCredentials).containsExactly("HTTP");
    assertThat(record().state()).isEqualTo(IntentState.COMPLETED);
  }

  @Test
  void the_intent_apis_header_provider_is_asked_to_refresh_after_a_401_of_the_first_attempt()
      throws Exception {
    server.start();
    List<Boolean> refreshFlags = new CopyOnWriteArrayList<>();
    try (IdempotentClient client = IdempotentClient.builder().store(store).clock(clock)
        .sleeper(new RecordingSleeper(clock)).retryPolicy(policy())
        .headerProvider(new HeaderProvider() {
          @Override
          public Map<String, String> headersFor(IntentId id, String url) {
            throw new AssertionError("the Target variant is called");
          }

          @Override
          public Map<String, String> headersFor(IntentId id, Target target) {
            refreshFlags.add(target.refresh());
            return Map.of("Authorization", target.refresh() ? "Bearer new" : "Bearer old");
          }
        })
        .build()) {
      server.enqueue(unauthorized());
      server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}").build());
      IntentSpec spec = IntentSpec.builder().operation("create-payment").scope("tenant-7")
          .post(server.url("/payments").toString()).jsonBody(BODY).build();

      IntentOutcome outcome = client.execute(spec);

      assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
      List<RecordedRequest> requests = taken();
      assertThat(requests).extracting(r -> r.getHeaders().get("Authorization"))
          .containsExactly("Bearer old", "Bearer new");
      assertThat(requests).extracting(r -> r.getHeaders().get("Idempotency-Key"))
          .containsOnly(requests.get(0).getHeaders().get("Idempotency-Key"));
      assertThat(refreshFlags).containsExactly(false, true);
    }
  }

  @Test
  void a_header_provider_that_gives_the_same_token_again_leaves_the_401_final() throws Exception {
    server.start();
    try (IdempotentClient client = IdempotentClient.builder().store(store).clock(clock)
        .sleeper(new RecordingSleeper(clock)).retryPolicy(policy())
        .headerProvider((id, url) -> Map.of("Authorization", "Bearer same"))
        .build()) {
      server.enqueue(unauthorized());
      IntentSpec spec = IntentSpec.builder().operation("create-payment").scope("tenant-7")
          .post(server.url("/payments").toString()).jsonBody(BODY).build();

      IntentOutcome outcome = client.execute(spec);

      assertThat(outcome).isInstanceOf(IntentOutcome.Rejected.class);
      assertThat(server.getRequestCount()).isEqualTo(1);
    }
  }
}
