package dev.oncely.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentStore;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.testing.Fault;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Drives a real {@link IdempotentClient} against MockWebServer and reads the exported spans. */
class OncelyTracingTest {
  private static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  private static final String SCOPE = "tenant-secret-scope";
  private static final String BUSINESS_ID = "order-4711";
  private static final String BODY = "{\"amount\":1000,\"card\":\"4242\"}";

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final SdkTracerProvider tracerProvider = SdkTracerProvider.builder()
      .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
  private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
      .setTracerProvider(tracerProvider)
      .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
      .build();
  private final ManualClock clock = new ManualClock(T0);
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private final List<IdempotentClient> clients = new ArrayList<>();

  @AfterEach
  void close() {
    clients.forEach(IdempotentClient::close);
    tracerProvider.close();
  }

  private IdempotentClient client(OncelyTracing tracing, IntentStore s, RetryBudget budget) {
    IdempotentClient client = IdempotentClient.builder()
        .store(s)
        .clock(clock)
        .sleeper(new RecordingSleeper(clock))
        .listener(tracing.listener())
        .callFactory(tracing.callFactory(new OkHttpClient.Builder()
            .retryOnConnectionFailure(false).followRedirects(false).build()))
        .retryBudget(budget)
        .retryPolicy(RetryPolicy.builder().maxAttempts(5).baseDelay(Duration.ofMillis(100))
            .deadline(Duration.ofMinutes(1)).attemptTimeout(Duration.ofMillis(500)).build())
        .build();
    clients.add(client);
    return client;
  }

  private IdempotentClient client(OncelyTracing tracing) {
    return client(tracing, store, RetryBudget.builder().build());
  }

  private IntentSpec spec() {
    return IntentSpec.builder()
        .operation("create-payment")
        .scope(SCOPE)
        .businessId(BUSINESS_ID)
        .post(server.url("/payments/" + BUSINESS_ID + "?token=abc").toString())
        .jsonBody(BODY)
        .build();
  }

  private static MockResponse status(int code) {
    return new MockResponse.Builder().code(code).build();
  }

  private SpanData intentSpan() {
    return exporter.getFinishedSpanItems().stream()
        .filter(s -> s.getKind() == SpanKind.INTERNAL)
        .filter(s -> s.getInstrumentationScopeInfo().getName()
            .equals(OncelyTracing.INSTRUMENTATION_NAME))
        .reduce((a, b) -> {
          throw new AssertionError("more than one intent span: " + a + ", " + b);
        }).orElseThrow();
  }

  private List<SpanData> attemptSpans() {
    return exporter.getFinishedSpanItems().stream()
        .filter(s -> s.getKind() == SpanKind.CLIENT)
        .sorted((a, b) -> Long.compare(
            a.getAttributes().get(AttributeKey.longKey("oncely.attempt")),
            b.getAttributes().get(AttributeKey.longKey("oncely.attempt"))))
        .toList();
  }

  @Test
  void one_span_per_intent_with_each_attempt_as_a_client_child_span() {
    server.enqueue(status(503));
    server.enqueue(Fault.dropAfterCommit().applyTo(new MockResponse.Builder().code(201)).build());
    server.enqueue(status(201));

    IntentOutcome outcome = client(OncelyTracing.create(otel)).execute(spec());

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    SpanData intent = intentSpan();
    assertThat(intent.getName()).isEqualTo("oncely create-payment");
    assertThat(intent.getAttributes().get(AttributeKey.stringKey("oncely.outcome")))
        .isEqualTo("completed");
    assertThat(intent.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    List<SpanData> attempts = attemptSpans();
    assertThat(attempts).hasSize(3).allSatisfy(a -> {
      assertThat(a.getName()).isEqualTo("POST");
      assertThat(a.getParentSpanId()).isEqualTo(intent.getSpanId());
      assertThat(a.getTraceId()).isEqualTo(intent.getTraceId());
      assertThat(a.getAttributes().get(AttributeKey.stringKey("http.request.method")))
          .isEqualTo("POST");
      assertThat(a.getAttributes().get(AttributeKey.stringKey("server.address")))
          .isEqualTo(server.getHostName());
    });
    AttributeKey<Long> resend = AttributeKey.longKey("http.request.resend_count");
    AttributeKey<Long> status = AttributeKey.longKey("http.response.status_code");
    AttributeKey<String> errorType = AttributeKey.stringKey("error.type");
    assertThat(attempts.get(0).getAttributes().get(resend)).isNull();
    assertThat(attempts.get(0).getAttributes().get(status)).isEqualTo(503);
    assertThat(attempts.get(0).getAttributes().get(errorType)).isEqualTo("503");
    assertThat(attempts.get(0).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(attempts.get(1).getAttributes().get(resend)).isEqualTo(1);
    assertThat(attempts.get(1).getAttributes().get(status)).isNull();
    assertThat(attempts.get(1).getAttributes().get(errorType)).isNotBlank();
    assertThat(attempts.get(2).getAttributes().get(resend)).isEqualTo(2);
    assertThat(attempts.get(2).getAttributes().get(status)).isEqualTo(201);
    assertThat(attempts.get(2).getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(intent.getEvents()).filteredOn(e -> e.getName().equals("retry scheduled"))
        .hasSize(2);
    assertThat(intent.getEvents()).first().satisfies(e ->
        assertThat(e.getName()).isEqualTo("recorded"));
  }

  @Test
  void the_intent_span_is_a_child_of_the_callers_span() {
    server.enqueue(status(201));
    IdempotentClient client = client(OncelyTracing.create(otel));
    Span caller = otel.getTracer("test").spanBuilder("checkout").startSpan();

    try (Scope ignored = caller.makeCurrent()) {
      client.execute(spec());
    } finally {
      caller.end();
    }

    assertThat(intentSpan().getParentSpanId()).isEqualTo(caller.getSpanContext().getSpanId());
    assertThat(intentSpan().getTraceId()).isEqualTo(caller.getSpanContext().getTraceId());
  }

  @Test
  void each_attempt_carries_the_traceparent_of_its_own_span() throws Exception {
    server.enqueue(status(503));
    server.enqueue(status(201));

    client(OncelyTracing.create(otel)).execute(spec());

    List<SpanData> attempts = attemptSpans();
    for (int i = 0; i < 2; i++) {
      RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
      SpanData attempt = attempts.get(i);
      assertThat(request.getHeaders().get("traceparent"))
          .isEqualTo("00-" + attempt.getTraceId() + "-" + attempt.getSpanId() + "-"
              + attempt.getSpanContext().getTraceFlags().asHex());
    }
  }

  @Test
  void a_rejected_intent_ends_its_span_with_error_status() {
    server.enqueue(new MockResponse.Builder().code(400).body("{\"error\":\"card declined\"}")
        .build());

    assertThat(client(OncelyTracing.create(otel)).execute(spec()))
        .isInstanceOf(IntentOutcome.Rejected.class);

    assertThat(intentSpan().getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(intentSpan().getAttributes().get(AttributeKey.stringKey("oncely.outcome")))
        .isEqualTo("rejected");
  }

  @Test
  void no_attribute_or_event_carries_a_key_scope_value_business_id_url_or_payload() {
    server.enqueue(new MockResponse.Builder().code(202).addHeader("Retry-After", "0")
        .addHeader("Location", "/payments/p-1/status").build());
    server.enqueue(status(409));
    server.enqueue(status(201));
    IntentSpec spec = spec();

    client(OncelyTracing.create(otel)).execute(spec);

    List<String> values = new ArrayList<>();
    for (SpanData span : exporter.getFinishedSpanItems()) {
      values.add(span.getName());
      span.getAttributes().forEach((k, v) -> values.add(String.valueOf(v)));
      span.getEvents().forEach(e -> {
        values.add(e.getName());
        e.getAttributes().forEach((k, v) -> values.add(String.valueOf(v)));
      });
    }
    assertThat(values).hasSizeGreaterThan(10).allSatisfy(v -> assertThat(v)
        .doesNotContain(spec.key()).doesNotContain(spec.id().safeKey()).doesNotContain(SCOPE)
        .doesNotContain(BUSINESS_ID).doesNotContain("/payments").doesNotContain("token")
        .doesNotContain(new String(spec.body(), StandardCharsets.UTF_8)).doesNotContain("4242"));
  }

  @Test
  void a_drive_resumed_by_a_new_client_starts_a_trace_linked_to_the_one_the_intent_was_born_in()
      throws Exception {
    OncelyTracing tracing = OncelyTracing.builder(otel).store(store).build();
    server.enqueue(status(503));
    Span caller = otel.getTracer("test").spanBuilder("checkout").startSpan();
    try (Scope ignored = caller.makeCurrent()) {
      IntentSpec spec = spec().toBuilder().traceContext(tracing.currentTraceContext()).build();
      IntentOutcome first = client(tracing, store, RetryBudget.builder().capacity(0).refillPerSecond(0).build())
          .execute(spec);
      assertThat(first).isInstanceOf(IntentOutcome.Pending.class);
    } finally {
      caller.end();
    }
    SpanData firstDrive = intentSpan();
    assertThat(firstDrive.getParentSpanId()).isEqualTo(caller.getSpanContext().getSpanId());
    assertThat(firstDrive.getAttributes().get(AttributeKey.stringKey("oncely.pending_reason")))
        .isEqualTo("retry_budget_exhausted");
    clients.forEach(IdempotentClient::close);
    exporter.reset();
    clock.advance(Duration.ofMinutes(1));
    server.enqueue(status(201));

    IdempotentClient restarted = client(OncelyTracing.builder(otel).store(store).build(),
        store, RetryBudget.builder().build());
    assertThat(restarted.resumePending().get(0).get(10, TimeUnit.SECONDS))
        .isInstanceOf(IntentOutcome.Completed.class);

    SpanData resumed = intentSpan();
    assertThat(resumed.getAttributes().get(AttributeKey.booleanKey("oncely.resumed"))).isTrue();
    assertThat(resumed.getTraceId()).isNotEqualTo(caller.getSpanContext().getTraceId());
    assertThat(resumed.getLinks()).singleElement().satisfies(link -> {
      assertThat(link.getSpanContext().getTraceId())
          .isEqualTo(caller.getSpanContext().getTraceId());
      assertThat(link.getSpanContext().getSpanId())
          .isEqualTo(caller.getSpanContext().getSpanId());
    });
  }

  @Test
  void a_first_drive_on_a_driver_thread_is_a_child_of_the_context_stored_with_the_intent()
      throws Exception {
    OncelyTracing tracing = OncelyTracing.builder(otel).store(store).build();
    server.enqueue(status(201));
    Span caller = otel.getTracer("test").spanBuilder("checkout").startSpan();
    IntentSpec spec;
    try (Scope ignored = caller.makeCurrent()) {
      spec = spec().toBuilder().traceContext(tracing.currentTraceContext()).build();
    } finally {
      caller.end();
    }

    assertThat(client(tracing).submit(spec).get(10, TimeUnit.SECONDS))
        .isInstanceOf(IntentOutcome.Completed.class);

    assertThat(intentSpan().getTraceId()).isEqualTo(caller.getSpanContext().getTraceId());
    assertThat(intentSpan().getParentSpanId()).isEqualTo(caller.getSpanContext().getSpanId());
    assertThat(intentSpan().getAttributes().get(AttributeKey.booleanKey("oncely.resumed")))
        .isFalse();
  }

  @Test
  void the_attempt_span_is_current_only_while_the_attempt_is_sent() {
    server.enqueue(status(201));
    IdempotentClient client = client(OncelyTracing.create(otel));

    client.execute(spec());

    assertThat(Span.current().getSpanContext().isValid()).isFalse();
  }

  @Test
  void calls_through_the_interceptor_get_the_same_intent_and_attempt_spans() throws Exception {
    server.enqueue(status(503));
    server.enqueue(status(201));
    OkHttpClient http = IdempotencyInterceptor.builder()
            .clock(clock)
            .sleeper(new RecordingSleeper(clock))
            .listener(OncelyTracing.create(otel).listener())
            .build().installOn(new OkHttpClient.Builder())
        .build();
    Request request = new Request.Builder().url(server.url("/orders"))
        .post(RequestBody.create(BODY, MediaType.get("application/json"))).build();

    try (Response response = http.newCall(request).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }

    SpanData intent = intentSpan();
    assertThat(intent.getAttributes().get(AttributeKey.stringKey("oncely.outcome")))
        .isEqualTo("completed");
    assertThat(attemptSpans()).hasSize(2)
        .allSatisfy(a -> assertThat(a.getParentSpanId()).isEqualTo(intent.getSpanId()));
    assertThat(attemptSpans().get(1).getAttributes()
        .get(AttributeKey.longKey("http.request.resend_count"))).isEqualTo(1);
  }
}
