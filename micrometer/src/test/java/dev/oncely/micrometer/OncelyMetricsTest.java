package dev.oncely.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentTag;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.testing.Fault;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.SocketEffect;
import mockwebserver3.junit5.StartStop;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Drives a real {@link IdempotentClient} against MockWebServer and reads the meters it left. */
class OncelyMetricsTest {
  private static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  private static final String SCOPE = "tenant-secret-scope";
  private static final String BUSINESS_ID = "order-4711";

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private final List<IdempotentClient> clients = new ArrayList<>();

  @AfterEach
  void closeClients() {
    clients.forEach(IdempotentClient::close);
  }

  private IdempotentClient client(IntentListener listener, RetryBudget budget) {
    IdempotentClient client = IdempotentClient.builder()
        .store(store)
        .clock(clock)
        .sleeper(new RecordingSleeper(clock))
        .listener(listener)
        .retryBudget(budget)
        .retryPolicy(RetryPolicy.builder()
            .maxAttempts(5)
            .baseDelay(Duration.ofMillis(100))
            .maxDelay(Duration.ofSeconds(10))
            .deadline(Duration.ofMinutes(1))
            .attemptTimeout(Duration.ofMillis(500))
            .build())
        .build();
    clients.add(client);
    return client;
  }

  private IdempotentClient client(IntentListener listener) {
    return client(listener, RetryBudget.builder().build());
  }

  private IntentSpec spec(String operation) {
    return IntentSpec.builder()
        .operation(operation)
        .scope(SCOPE)
        .businessId(BUSINESS_ID + "-" + operation)
        .post(server.url("/payments/" + BUSINESS_ID).toString())
        .jsonBody("{\"amount\":1000}")
        .build();
  }

  private static MockResponse status(int code) {
    return new MockResponse.Builder().code(code).build();
  }

  private double count(String name, String... tags) {
    return registry.find(name).tags(tags).counters().stream()
        .mapToDouble(c -> c.count()).sum();
  }

  @Test
  void attempts_retries_by_cause_and_the_outcome_are_counted_for_a_real_drive() {
    server.enqueue(status(503));
    server.enqueue(Fault.dropAfterCommit().applyTo(new MockResponse.Builder().code(201)).build());
    server.enqueue(status(201));
    String host = server.getHostName();

    IntentOutcome outcome = client(OncelyMetrics.builder(registry)
        .dialect(Dialects.ietf()).build()).execute(spec("create-payment"));

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(count(OncelyMetrics.RECORDED, "operation", "create-payment")).isEqualTo(1);
    assertThat(count(OncelyMetrics.ATTEMPTS, "operation", "create-payment", "host", host,
        "kind", "send", "dialect", Dialects.ietf().name())).isEqualTo(3);
    assertThat(count(OncelyMetrics.RETRIES, "cause", "status_5xx")).isEqualTo(1);
    assertThat(count(OncelyMetrics.RETRIES, "cause", "no_answer")).isEqualTo(1);
    assertThat(count(OncelyMetrics.INTENTS, "operation", "create-payment",
        "outcome", "completed", "reason", "none")).isEqualTo(1);
    assertThat(registry.find(OncelyMetrics.ATTEMPT_DURATION).tag("outcome", "5xx").timer().count())
        .isEqualTo(1);
    assertThat(registry.find(OncelyMetrics.ATTEMPT_DURATION).tag("outcome", "no_answer").timer()
        .count()).isEqualTo(1);
    assertThat(registry.find(OncelyMetrics.ATTEMPT_DURATION).tag("outcome", "2xx").timer().count())
        .isEqualTo(1);
  }

  @Test
  void accepted_202_and_in_progress_409_are_counted_and_name_the_retry_cause() {
    server.enqueue(status(409));
    server.enqueue(status(202));
    server.enqueue(status(201));

    IntentOutcome outcome = client(OncelyMetrics.create(registry)).execute(spec("refund"));

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(count(OncelyMetrics.IN_PROGRESS, "operation", "refund", "status", "409"))
        .isEqualTo(1);
    assertThat(count(OncelyMetrics.ACCEPTED, "operation", "refund")).isEqualTo(1);
    assertThat(count(OncelyMetrics.RETRIES, "cause", "in_progress")).isEqualTo(1);
    assertThat(count(OncelyMetrics.RETRIES, "cause", "accepted")).isEqualTo(1);
  }

  @Test
  void a_poll_of_a_status_url_counts_as_an_attempt_of_kind_poll() {
    server.enqueue(new MockResponse.Builder().code(202).addHeader("Retry-After", "0")
        .addHeader("Location", "/payments/p-1/status").build());
    server.enqueue(status(201));

    IntentOutcome outcome = client(OncelyMetrics.create(registry)).execute(spec("capture"));

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(count(OncelyMetrics.ATTEMPTS, "kind", "send")).isEqualTo(1);
    assertThat(count(OncelyMetrics.ATTEMPTS, "kind", "poll")).isEqualTo(1);
  }

  @Test
  void a_payload_mismatch_is_counted_and_ends_as_key_conflict() {
    server.enqueue(new MockResponse.Builder().code(422).body("{\"error\":\"mismatch\"}").build());

    IntentOutcome outcome = client(OncelyMetrics.create(registry)).execute(spec("create-payment"));

    assertThat(outcome).isInstanceOf(IntentOutcome.KeyConflict.class);
    assertThat(count(OncelyMetrics.PAYLOAD_MISMATCHES, "operation", "create-payment"))
        .isEqualTo(1);
    assertThat(count(OncelyMetrics.INTENTS, "outcome", "key_conflict")).isEqualTo(1);
  }

  @Test
  void a_retry_refused_by_the_budget_is_counted_and_the_drive_ends_pending_with_its_reason() {
    server.enqueue(status(503));

    IntentOutcome outcome = client(OncelyMetrics.create(registry),
        RetryBudget.builder().capacity(0).refillPerSecond(0).build()).execute(spec("create-payment"));

    assertThat(outcome).isInstanceOf(IntentOutcome.Pending.class);
    assertThat(count(OncelyMetrics.BUDGET_EXHAUSTED, "host", server.getHostName())).isEqualTo(1);
    assertThat(count(OncelyMetrics.INTENTS, "outcome", "pending",
        "reason", "retry_budget_exhausted")).isEqualTo(1);
  }

  @Test
  void no_meter_is_tagged_with_a_key_scope_value_business_id_or_url() {
    server.enqueue(status(503));
    server.enqueue(status(201));
    IntentSpec spec = spec("create-payment");

    client(OncelyMetrics.create(registry)).execute(spec);

    List<String> values = new ArrayList<>();
    for (Meter meter : registry.getMeters()) {
      for (Tag tag : meter.getId().getTags()) {
        values.add(tag.getValue());
      }
    }
    assertThat(values).isNotEmpty();
    assertThat(values).allSatisfy(v -> assertThat(v)
        .doesNotContain(spec.key()).doesNotContain(spec.id().safeKey()).doesNotContain(SCOPE)
        .doesNotContain(BUSINESS_ID).doesNotContain("/payments"));
  }

  @Test
  void operation_names_beyond_the_cap_are_reported_as_other() {
    for (int i = 0; i < 3; i++) {
      server.enqueue(status(201));
    }
    IdempotentClient client = client(OncelyMetrics.builder(registry).maxOperations(2).build());

    client.execute(spec("op-1"));
    client.execute(spec("op-2"));
    client.execute(spec("op-3-with-an-id-in-it"));

    assertThat(registry.find(OncelyMetrics.INTENTS).counters())
        .extracting(c -> c.getId().getTag("operation"))
        .containsExactlyInAnyOrder("op-1", "op-2", "other");
  }

  @Test
  void the_interceptors_path_based_operation_names_cannot_grow_the_registry_without_end()
      throws Exception {
    OkHttpClient http = IdempotencyInterceptor.builder()
            .clock(clock)
            .sleeper(new RecordingSleeper(clock))
            .listener(OncelyMetrics.builder(registry).maxOperations(2).build())
            .build().installOn(new OkHttpClient.Builder())
        .build();
    for (int order = 1; order <= 4; order++) {
      server.enqueue(status(201));
      Request request = new Request.Builder().url(server.url("/orders/" + order))
          .post(RequestBody.create("{}", MediaType.get("application/json"))).build();
      try (Response response = http.newCall(request).execute()) {
        assertThat(response.code()).isEqualTo(201);
      }
    }

    assertThat(registry.find(OncelyMetrics.ATTEMPTS).counters())
        .extracting(c -> c.getId().getTag("operation")).hasSize(3).contains("other");
    assertThat(count(OncelyMetrics.ATTEMPTS, "operation", "other")).isEqualTo(2);
  }

  @Test
  void a_delete_okhttp_resent_by_itself_is_two_attempts_in_the_meters() throws Exception {
    OkHttpClient http = IdempotencyInterceptor.builder().store(store)
            .clock(clock)
            .sleeper(new RecordingSleeper(clock))
            .listener(OncelyMetrics.builder(registry).build())
            .build().installOn(new OkHttpClient.Builder())
        .build();
    server.enqueue(status(200));
    try (Response warm = http.newCall(new Request.Builder().url(server.url("/warm")).build())
        .execute()) {
      assertThat(warm.code()).isEqualTo(200);
    }
    // The effect is taken, the pooled connection dies before the answer, OkHttp resends.
    server.enqueue(new MockResponse.Builder().code(204)
        .onResponseStart(new SocketEffect.CloseSocket(true, true, true)).build());
    server.enqueue(status(204));
    Request voidAuthorization = new Request.Builder().url(server.url("/authorizations/a1"))
        .delete().tag(IntentTag.class, IntentTag.builder().operation("void-authorization")
            .scope(SCOPE).businessId("a1").build())
        .build();

    try (Response response = http.newCall(voidAuthorization).execute()) {
      assertThat(response.code()).isEqualTo(204);
    }

    assertThat(server.getRequestCount()).as("the warm-up and two DELETEs").isEqualTo(3);
    assertThat(count(OncelyMetrics.ATTEMPTS, "operation", "void-authorization", "kind", "send"))
        .as("oncely.attempts counts requests sent").isEqualTo(2);
  }
}
