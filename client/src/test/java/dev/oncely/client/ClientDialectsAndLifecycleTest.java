package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.EventCounter;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ClientDialectsAndLifecycleTest {
  private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private final EventCounter events = new EventCounter();

  private IdempotentClient.Builder clientBuilder() {
    return IdempotentClient.builder()
        .store(store)
        .clock(clock)
        .sleeper(new RecordingSleeper(clock))
        .listener(events);
  }

  private IntentSpec spec() {
    return IntentSpec.builder().operation("create-order").scope("tenant-a")
        .post(server.url("/orders").toString()).jsonBody("{\"sku\":\"A-1\",\"qty\":2}").build();
  }

  static Stream<Arguments> dialects() {
    return Stream.of(
        Arguments.of(Dialects.ietf(), "Idempotency-Key", true),
        Arguments.of(Dialects.stripe(), "Idempotency-Key", false),
        Arguments.of(Dialects.paypal(), "PayPal-Request-Id", false),
        Arguments.of(Dialects.custom("acme").keyHeader("X-Acme-Key").quoteKey(true).build(),
            "X-Acme-Key", true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dialects")
  void each_dialect_puts_the_same_key_where_its_server_expects_it(Dialect dialect, String header,
      boolean quoted) throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).build());
    server.enqueue(new MockResponse.Builder().code(201).build());
    IntentSpec spec = spec();

    try (IdempotentClient client = clientBuilder().dialect(dialect).build()) {
      assertThat(client.execute(spec)).isInstanceOf(IntentOutcome.Completed.class);
    }

    String expected = quoted ? "\"" + spec.key() + "\"" : spec.key();
    for (int i = 0; i < 2; i++) {
      RecordedRequest r = server.takeRequest(5, TimeUnit.SECONDS);
      assertThat(r.getHeaders().get(header)).isEqualTo(expected);
    }
    assertThat(store.get(spec.id()).orElseThrow().state()).isEqualTo(IntentState.COMPLETED);
  }

  @Test
  void stripe_idempotency_error_becomes_a_key_conflict() {
    server.enqueue(new MockResponse.Builder().code(400)
        .body("{\"error\":{\"type\":\"idempotency_error\"}}").build());

    try (IdempotentClient client = clientBuilder().dialect(Dialects.stripe()).build()) {
      assertThat(client.execute(spec())).isInstanceOf(IntentOutcome.KeyConflict.class);
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void stripe_replay_marker_is_surfaced_on_the_outcome() {
    server.enqueue(new MockResponse.Builder().code(200).addHeader("Idempotent-Replayed", "true")
        .body("{\"id\":\"ch_1\"}").build());

    try (IdempotentClient client = clientBuilder().dialect(Dialects.stripe()).build()) {
      IntentOutcome outcome = client.execute(spec());
      assertThat(outcome).isInstanceOfSatisfying(IntentOutcome.Completed.class,
          c -> assertThat(c.replayed()).isTrue());
    }
  }

  @Test
  void custom_dialect_417_becomes_a_key_conflict() {
    server.enqueue(new MockResponse.Builder().code(417).build());
    Dialect custom = Dialects.custom("legacy").mismatchStatus(417).build();

    try (IdempotentClient client = clientBuilder().dialect(custom).build()) {
      assertThat(client.execute(spec())).isInstanceOf(IntentOutcome.KeyConflict.class);
    }
    assertThat(events.mismatches()).isEqualTo(1);
  }

  @Test
  void discarded_responses_are_closed_so_connections_return_to_the_pool() {
    server.enqueue(new MockResponse.Builder().code(503).body("busy").build());
    server.enqueue(new MockResponse.Builder().code(409).body("in progress").build());
    server.enqueue(new MockResponse.Builder().code(201).body("done").build());
    OkHttpClient http = new OkHttpClient();

    try (IdempotentClient client = clientBuilder().okHttpClient(http).build()) {
      assertThat(client.execute(spec())).isInstanceOf(IntentOutcome.Completed.class);
    }

    assertThat(http.connectionPool().connectionCount()).isEqualTo(1);
    assertThat(http.connectionPool().idleConnectionCount()).isEqualTo(1);
  }

  @Test
  void closing_the_client_leaves_a_waiting_intent_pending_and_resumable() throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).build());
    CountDownLatch waiting = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    IntentSpec spec = spec();
    IdempotentClient client = clientBuilder().sleeper(d -> {
      waiting.countDown();
      never.await();
    }).build();

    CompletableFuture<IntentOutcome> future = client.submit(spec);
    assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
    client.close();

    assertThat(future.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(
        IntentOutcome.Pending.class,
        p -> assertThat(p.reason()).isEqualTo(PendingReason.INTERRUPTED));
    assertThat(store.get(spec.id()).orElseThrow().state()).isEqualTo(IntentState.PENDING);

    server.enqueue(new MockResponse.Builder().code(201).build());
    try (IdempotentClient restarted = clientBuilder().build()) {
      assertThat(restarted.resumePending()).singleElement()
          .satisfies(f -> assertThat(f.get(10, TimeUnit.SECONDS))
              .isInstanceOf(IntentOutcome.Completed.class));
    }
  }

  @Test
  void record_left_in_flight_by_a_crash_is_resent_with_its_key_on_resume() throws Exception {
    IntentSpec spec = spec();
    store.create(IntentRecord.builder().id(spec.id()).method("POST").url(spec.url())
        .body(spec.body(), spec.mediaType()).fingerprint(spec.fingerprint())
        .state(IntentState.NEW).createdAt(T0).updatedAt(T0).expiresAt(T0.plus(Duration.ofDays(1)))
        .build());
    IntentRecord created = store.get(spec.id()).orElseThrow();
    store.compareAndSet(created, created.successor().state(IntentState.IN_FLIGHT).attempts(1)
        .build());
    server.enqueue(new MockResponse.Builder().code(201).build());

    try (IdempotentClient client = clientBuilder().build()) {
      assertThat(client.resumePending().get(0).get(10, TimeUnit.SECONDS))
          .isInstanceOf(IntentOutcome.Completed.class);
    }

    RecordedRequest resent = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(resent.getHeaders().get("Idempotency-Key")).isEqualTo("\"" + spec.key() + "\"");
    assertThat(resent.getBody().toByteArray()).isEqualTo(spec.body());
    assertThat(store.get(spec.id()).orElseThrow().attempts()).isEqualTo(2);
  }

  @Test
  void a_drive_whose_waits_cross_the_key_retention_never_resends_after_it() {
    for (int i = 0; i < 5; i++) {
      server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", "1800")
          .build());
    }
    IntentSpec spec = spec();
    try (IdempotentClient client = clientBuilder().keyRetention(Duration.ofHours(1))
        .retryPolicy(RetryPolicy.builder().maxAttempts(5).maxDelay(Duration.ofMinutes(40))
            .deadline(Duration.ofHours(5)).build())
        .build()) {
      IntentOutcome outcome = client.execute(spec);

      // Sent at 0 and 30 minutes; the resend due at 60 minutes would reach a server that may
      // have forgotten the key.
      assertThat(outcome).isInstanceOf(IntentOutcome.NeedsReconciliation.class);
      assertThat(server.getRequestCount()).isEqualTo(2);
      assertThat(store.get(spec.id()).orElseThrow().state())
          .isEqualTo(IntentState.NEEDS_RECONCILIATION);
    }
  }

  @Test
  void finished_records_are_kept_seven_days_by_default_then_purged() {
    server.enqueue(new MockResponse.Builder().code(201).build());
    IntentSpec spec = spec();
    try (IdempotentClient client = clientBuilder().keyRetention(Duration.ofHours(1)).build()) {
      client.execute(spec);
      clock.advance(Duration.ofDays(7).minusMinutes(1));
      assertThat(client.purgeExpired()).isZero();

      clock.advance(Duration.ofMinutes(1));
      assertThat(client.purgeExpired()).isEqualTo(1);
    }
    assertThat(store.get(spec.id())).isEmpty();
  }

  @Test
  void finished_retention_is_never_shorter_than_the_key_retention() {
    server.enqueue(new MockResponse.Builder().code(201).build());
    IntentSpec spec = spec();
    try (IdempotentClient client = clientBuilder().keyRetention(Duration.ofHours(3))
        .finishedRetention(Duration.ofHours(1)).build()) {
      client.execute(spec);
      clock.advance(Duration.ofHours(2));
      assertThat(client.purgeExpired()).isZero();
      clock.advance(Duration.ofHours(1));
      assertThat(client.purgeExpired()).isEqualTo(1);
    }
  }

  @Test
  void resume_pending_purges_finished_records_past_their_retention() {
    server.enqueue(new MockResponse.Builder().code(201).build());
    IntentSpec spec = spec();
    try (IdempotentClient client = clientBuilder().finishedRetention(Duration.ofDays(1)).build()) {
      client.execute(spec);
      clock.advance(Duration.ofDays(2));

      assertThat(client.resumePending()).isEmpty();
    }
    assertThat(store.get(spec.id())).isEmpty();
  }

  @Test
  void resume_pending_resumes_even_when_purging_fails() throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).build());
    server.enqueue(new MockResponse.Builder().code(201).build());
    IntentSpec spec = spec();
    try (IdempotentClient first = clientBuilder()
        .retryPolicy(RetryPolicy.builder().maxAttempts(1).build()).build()) {
      assertThat(first.execute(spec)).isInstanceOf(IntentOutcome.Pending.class);
    }

    try (IdempotentClient restarted = clientBuilder().store(new PurgeFailingStore(store)).build()) {
      List<CompletableFuture<IntentOutcome>> resumed = restarted.resumePending();

      assertThat(resumed).hasSize(1);
      assertThat(resumed.get(0).get(10, TimeUnit.SECONDS))
          .isInstanceOf(IntentOutcome.Completed.class);
    }
  }

  /** Our real in-memory store, except that purging fails as a broken disk would. */
  private static final class PurgeFailingStore extends ForwardingIntentStore {
    PurgeFailingStore(IntentStore delegate) {
      super(delegate);
    }

    @Override
    public int purgeExpired(Instant now) {
      throw new StoreException("purge failed: disk error");
    }
  }

  @Test
  void finished_retention_must_be_positive() {
    assertThatThrownBy(() -> IdempotentClient.builder().finishedRetention(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("finishedRetention must be a duration > 0");
  }
}
