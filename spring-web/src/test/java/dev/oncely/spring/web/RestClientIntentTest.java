package dev.oncely.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.IntentTag;
import dev.oncely.client.NeedsReconciliationException;
import dev.oncely.client.PayloadMismatchException;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.event.IntentListener;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.ReceivedRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * A {@link RestClient} on {@link OncelyClientHttpRequestFactory} against the testing kit's server:
 * a call that names its intent with {@link IntentAttributes} is a durable intent (one effect and
 * one key through dropped answers, a changed body refused before any I/O, resumed after a restart
 * without a second effect), and its redirects and credentials follow the interceptor's rules. A
 * "restart" is a new store instance on the same file, a new interceptor and a new factory.
 */
class RestClientIntentTest {
  private static final String BODY = "{\"order\":\"order-7\",\"amount\":1000}";
  private static final String KEY_HEADER = IdempotentServer.DEFAULT_KEY_HEADER;

  @TempDir
  Path dir;

  private final MockWebServer server = new MockWebServer();
  private IdempotentServer kit;
  private IntentStore store;

  private void start(FaultScript faults) throws Exception {
    kit = IdempotentServer.builder().faults(faults)
        .intentOf(IdempotentServer.jsonField("order")).build();
    server.setDispatcher(kit);
    server.start();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    if (store != null) {
      store.close();
    }
  }

  private IntentStore openStore() {
    store = MapDbIntentStore.open(dir.resolve("intents.db"));
    return store;
  }

  private static IdempotencyInterceptor interceptor(IntentStore store, int maxAttempts) {
    return IdempotencyInterceptor.builder().store(store).listener(IntentListener.NONE)
        .retryPolicy(RetryPolicy.builder().maxAttempts(maxAttempts)
            .baseDelay(Duration.ofMillis(5)).maxDelay(Duration.ofMillis(20))
            .attemptTimeout(Duration.ofSeconds(2)).deadline(Duration.ofSeconds(20)).build())
        .build();
  }

  private RestClient restClient(IdempotencyInterceptor interceptor) {
    return RestClient.builder()
        .requestFactory(OncelyClientHttpRequestFactory.builder(interceptor).build())
        .defaultHeader(HttpHeaders.AUTHORIZATION, "Bearer secret-token")
        .build();
  }

  private static IntentTag tag() {
    return IntentTag.builder().operation("create-payment").scope("tenant-42")
        .businessId("order-7").build();
  }

  private ResponseEntity<String> pay(RestClient client, String body) {
    return client.post().uri(server.url("/payments").uri())
        .attributes(IntentAttributes.of(tag()))
        .contentType(MediaType.APPLICATION_JSON)
        .body(body)
        .retrieve()
        .toEntity(String.class);
  }

  @Test
  void dropped_answers_after_commit_give_one_effect_under_one_key() throws Exception {
    start(FaultScript.builder().onRequest(1, Fault.dropAfterCommit())
        .onRequest(2, Fault.dropAfterCommit()).build());

    ResponseEntity<String> answer = pay(restClient(interceptor(openStore(), 5)), BODY);

    assertThat(answer.getStatusCode().value()).isEqualTo(201);
    assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);
    List<ReceivedRequest> sent = kit.requests().all();
    assertThat(sent).hasSize(3);
    assertThat(sent).extracting(r -> r.header(KEY_HEADER)).doesNotContainNull().containsOnly(
        sent.get(0).header(KEY_HEADER));
    assertThat(sent).extracting(ReceivedRequest::bodyText).containsOnly(BODY);
  }

  @Test
  void a_changed_body_under_a_used_business_id_is_refused_before_any_io() throws Exception {
    start(FaultScript.none());
    RestClient client = restClient(interceptor(openStore(), 3));
    pay(client, BODY);

    assertThatThrownBy(() -> pay(client, "{\"order\":\"order-7\",\"amount\":5}"))
        .isInstanceOf(ResourceAccessException.class)
        .cause().isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(PayloadMismatchException.class);
    assertThat(kit.requests().size()).isEqualTo(1);
  }

  @Test
  void an_intent_left_pending_is_resumed_after_a_restart_without_a_second_effect()
      throws Exception {
    start(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build());
    assertThatThrownBy(() -> pay(restClient(interceptor(openStore(), 1)), BODY))
        .isInstanceOf(ResourceAccessException.class);
    assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);
    store.close();

    IntentStore reopened = openStore();
    assertThat(reopened.listUnfinished()).singleElement()
        .extracting(IntentRecord::businessId).isEqualTo("order-7");
    OncelyClientHttpRequestFactory restarted =
        OncelyClientHttpRequestFactory.builder(interceptor(reopened, 3)).build();
    List<CompletableFuture<IntentOutcome>> resumed = restarted.resumePending(outcome -> { });

    assertThat(resumed).singleElement().extracting(f -> f.join().state())
        .isEqualTo(IntentState.COMPLETED);
    assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);
    assertThat(kit.requests().all()).extracting(r -> r.header(KEY_HEADER)).hasSize(2)
        .containsOnly(kit.requests().all().get(0).header(KEY_HEADER));
    // The repeat after the restart is the same call: answered from the store, no I/O.
    assertThat(pay(RestClient.builder().requestFactory(restarted).build(), BODY)
        .getHeaders().getFirst(IdempotencyInterceptor.STORED_RESPONSE_HEADER)).isEqualTo("true");
    assertThat(kit.requests().size()).isEqualTo(2);
  }

  @Test
  void a_redirect_to_another_origin_is_not_followed_and_no_credential_or_key_leaves()
      throws Exception {
    try (MockWebServer elsewhere = new MockWebServer()) {
      elsewhere.start();
      start(FaultScript.builder()
          .onRequest(1, Fault.redirect(302, elsewhere.url("/payments").toString())).build());

      assertThatThrownBy(() -> pay(restClient(interceptor(openStore(), 3)), BODY))
          .isInstanceOf(ResourceAccessException.class)
          .cause().isInstanceOf(IntentIOException.class)
          .cause().isInstanceOf(NeedsReconciliationException.class);

      assertThat(elsewhere.getRequestCount()).isZero();
      assertThat(kit.requests().size()).isEqualTo(1);
      IntentRecord record = store.findByBusinessId("tenant-42", "create-payment", "order-7")
          .orElseThrow();
      assertThat(record.state()).isEqualTo(IntentState.NEEDS_RECONCILIATION);
    }
  }

  @Test
  void a_redirect_within_the_origin_is_resent_there_with_the_same_key_and_credentials()
      throws Exception {
    start(FaultScript.builder().onRequest(1, Fault.redirect(307, "/v2/payments")).build());

    ResponseEntity<String> answer = pay(restClient(interceptor(openStore(), 3)), BODY);

    assertThat(answer.getStatusCode().value()).isEqualTo(201);
    List<ReceivedRequest> sent = kit.requests().all();
    assertThat(sent).extracting(r -> r.url().encodedPath())
        .containsExactly("/payments", "/v2/payments");
    assertThat(sent).extracting(r -> r.header(KEY_HEADER)).containsOnly(sent.get(0).header(
        KEY_HEADER));
    assertThat(sent).extracting(r -> r.header("Authorization")).containsOnly("Bearer secret-token");
    assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);
    IntentRecord record = store.findByBusinessId("tenant-42", "create-payment", "order-7")
        .orElseThrow();
    assertThat(record.headers().keySet()).noneMatch(h -> h.equalsIgnoreCase("Authorization"));
  }

  @Test
  void a_call_without_an_intent_that_is_not_unsafe_passes_through_without_a_key()
      throws Exception {
    start(FaultScript.none());
    String listing = restClient(interceptor(openStore(), 3)).get()
        .uri(server.url("/payments").uri()).retrieve().body(String.class);

    assertThat(listing).isEqualTo("{\"data\":[]}");
    assertThat(kit.requests().all()).singleElement().satisfies(r -> {
      assertThat(r.header(KEY_HEADER)).isNull();
      assertThat(r.header("Authorization")).isEqualTo("Bearer secret-token");
    });
  }

  @Test
  void an_app_interceptor_that_executes_twice_gets_the_first_answer_from_the_store()
      throws Exception {
    start(FaultScript.none());
    RestClient twice = RestClient.builder()
        .requestFactory(OncelyClientHttpRequestFactory.builder(interceptor(openStore(), 3)).build())
        .requestInterceptor((request, body, execution) -> {
          execution.execute(request, body).close();
          return execution.execute(request, body);
        })
        .build();

    ResponseEntity<String> answer = pay(twice, BODY);

    assertThat(answer.getStatusCode().value()).isEqualTo(201);
    assertThat(answer.getHeaders().getFirst(IdempotencyInterceptor.STORED_RESPONSE_HEADER))
        .isEqualTo("true");
    assertThat(kit.requests().size()).isEqualTo(1);
    assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);
  }

  @Test
  void the_factory_refuses_an_app_client_that_already_has_an_idempotency_interceptor() {
    IdempotencyInterceptor interceptor = IdempotencyInterceptor.create();
    OkHttpClient twice = new OkHttpClient.Builder().addNetworkInterceptor(interceptor).build();

    assertThatThrownBy(() -> OncelyClientHttpRequestFactory.builder(interceptor)
        .okHttpClient(twice).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("already has an IdempotencyInterceptor");
  }

  @Test
  void an_attribute_that_is_not_an_intent_tag_is_refused_before_any_io() throws Exception {
    start(FaultScript.none());
    RestClient client = restClient(interceptor(openStore(), 3));

    assertThatThrownBy(() -> client.post().uri(server.url("/payments").uri())
        .attribute(IntentAttributes.NAME, "order-7").body(BODY).retrieve().toBodilessEntity())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be an IntentTag");
    assertThat(kit.requests().size()).isZero();
  }
}
