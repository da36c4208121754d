package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.EventCounter;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.MaxJitter;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.testing.Fault;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class IdempotentClientTest {
  private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");
  private static final String BODY = "{\"amount\":1000,\"currency\":\"JPY\"}";

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final EventCounter events = new EventCounter();
  private final List<IntentEvent> seen = new CopyOnWriteArrayList<>();
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private final List<IdempotentClient> clients = new ArrayList<>();

  @AfterEach
  void closeClients() {
    clients.forEach(IdempotentClient::close);
  }

  private IdempotentClient.Builder clientBuilder() {
    return IdempotentClient.builder()
        .store(store)
        .clock(clock)
        .sleeper(sleeper)
        .listener(IntentListener.all(events, seen::add))
        .retryPolicy(RetryPolicy.builder()
            .maxAttempts(5)
            .baseDelay(Duration.ofMillis(100))
            .maxDelay(Duration.ofSeconds(10))
            .deadline(Duration.ofMinutes(1))
            .attemptTimeout(Duration.ofMillis(500))
            .build());
  }

  private IdempotentClient client(IdempotentClient.Builder builder) {
    IdempotentClient client = builder.build();
    clients.add(client);
    return client;
  }

  private IdempotentClient client() {
    return client(clientBuilder());
  }

  private IntentSpec spec(String json) {
    return IntentSpec.builder()
        .operation("create-payment")
        .scope("tenant-a")
        .post(server.url("/payments").toString())
        .jsonBody(json)
        .build();
  }

  /** A {@code 201} that never arrives: the client's read times out. */
  private static MockResponse stall() {
    return Fault.stallAfterCommit().applyTo(new MockResponse.Builder().code(201)).build();
  }

  private static MockResponse status(int code) {
    return new MockResponse.Builder().code(code).build();
  }

  private static MockResponse created() {
    return new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}").build();
  }

  private List<RecordedRequest> requests() throws InterruptedException {
    List<RecordedRequest> all = new ArrayList<>();
    for (int i = 0; i < server.getRequestCount(); i++) {
      all.add(server.takeRequest(5, TimeUnit.SECONDS));
    }
    return all;
  }

  private static String quoted(String key) {
    return "\"" + key + "\"";
  }

  @Test
  void key_is_reused_across_attempts() throws Exception {
    server.enqueue(status(503));
    server.enqueue(status(503));
    server.enqueue(created());
    IntentSpec spec = spec(BODY);

    IntentOutcome outcome = client().execute(spec);

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(((IntentOutcome.Completed) outcome).response().status()).isEqualTo(201);
    List<RecordedRequest> requests = requests();
    assertThat(requests).hasSize(3);
    for (RecordedRequest r : requests) {
      assertThat(r.getHeaders().get("Idempotency-Key")).isEqualTo(quoted(spec.key()));
      assertThat(r.getBody().toByteArray()).isEqualTo(BODY.getBytes(StandardCharsets.UTF_8));
      assertThat(r.getMethod()).isEqualTo("POST");
    }
    assertThat(events.attempts()).isEqualTo(3);
    assertThat(events.retries()).isEqualTo(2);
    assertThat(store.get(spec.id()).orElseThrow().state()).isEqualTo(IntentState.COMPLETED);
  }

  @Test
  void record_is_stored_before_the_first_byte_is_sent() throws Exception {
    IntentSpec spec = spec(BODY);
    AtomicReference<IntentRecord> seenByServer = new AtomicReference<>();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        seenByServer.set(store.get(spec.id()).orElse(null));
        return created();
      }
    });

    client().execute(spec);

    IntentRecord atArrival = seenByServer.get();
    assertThat(atArrival).isNotNull();
    assertThat(atArrival.state()).isEqualTo(IntentState.IN_FLIGHT);
    assertThat(atArrival.fingerprint()).isEqualTo(spec.fingerprint());
    assertThat(atArrival.body()).isEqualTo(spec.body());
  }

  @Test
  void outcome_is_stored_before_the_caller_is_told() {
    server.enqueue(created());
    IntentSpec spec = spec(BODY);
    AtomicReference<IntentState> stateAtEvent = new AtomicReference<>();
    IdempotentClient client = client(clientBuilder().listener(event -> {
      if (event instanceof IntentEvent.Completed) {
        stateAtEvent.set(store.get(spec.id()).orElseThrow().state());
      }
    }));

    client.execute(spec);

    assertThat(stateAtEvent.get()).isEqualTo(IntentState.COMPLETED);
  }

  @Test
  void request_received_then_no_answer_is_retried_with_the_same_key_and_completes_once()
      throws Exception {
    server.enqueue(stall());
    server.enqueue(created());
    IntentSpec spec = spec(BODY);

    IntentOutcome outcome = client().execute(spec);

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    List<RecordedRequest> requests = requests();
    assertThat(requests).hasSize(2);
    assertThat(requests).allSatisfy(r ->
        assertThat(r.getHeaders().get("Idempotency-Key")).isEqualTo(quoted(spec.key())));
    assertThat(events.completed()).isEqualTo(1);
    assertThat(seen).filteredOn(e -> e instanceof IntentEvent.AttemptEnded a && a.status() == -1)
        .hasSize(1);
  }

  @Test
  void reset_after_the_request_was_written_is_retried_with_the_same_key() throws Exception {
    server.enqueue(Fault.dropAfterCommit().applyTo(new MockResponse.Builder().code(201)).build());
    server.enqueue(created());
    IntentSpec spec = spec(BODY);

    assertThat(client().execute(spec)).isInstanceOf(IntentOutcome.Completed.class);

    List<RecordedRequest> requests = requests();
    assertThat(requests).hasSize(2);
    assertThat(requests).allSatisfy(r ->
        assertThat(r.getHeaders().get("Idempotency-Key")).isEqualTo(quoted(spec.key())));
  }

  @Test
  void response_cut_during_its_body_is_retried_with_the_same_key() throws Exception {
    server.enqueue(Fault.truncateBody().applyTo(new MockResponse.Builder().code(201)
        .body("{\"id\":\"pay_1\",\"pad\":\"" + "x".repeat(64 * 1024) + "\"}")).build());
    server.enqueue(created());
    IntentSpec spec = spec(BODY);

    IntentOutcome outcome = client().execute(spec);

    assertThat(outcome).isInstanceOfSatisfying(IntentOutcome.Completed.class,
        c -> assertThat(new String(c.response().body(), StandardCharsets.UTF_8))
            .isEqualTo("{\"id\":\"pay_1\"}"));
    assertThat(requests()).extracting(r -> r.getHeaders().get("Idempotency-Key"))
        .containsExactly(quoted(spec.key()), quoted(spec.key()));
  }

  @Test
  void retry_after_in_seconds_sets_the_wait() {
    server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", "3").build());
    server.enqueue(created());

    assertThat(client().execute(spec(BODY))).isInstanceOf(IntentOutcome.Completed.class);

    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(3));
  }

  @Test
  void retry_after_as_http_date_sets_the_wait() {
    String date = DateTimeFormatter.RFC_1123_DATE_TIME
        .format(T0.plusSeconds(7).atOffset(ZoneOffset.UTC));
    server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", date).build());
    server.enqueue(created());

    assertThat(client().execute(spec(BODY))).isInstanceOf(IntentOutcome.Completed.class);

    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(7));
  }

  @Test
  void retry_after_beyond_the_cap_waits_only_the_cap() {
    server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "3600").build());
    server.enqueue(created());

    assertThat(client().execute(spec(BODY))).isInstanceOf(IntentOutcome.Completed.class);

    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(10));
  }

  @Test
  void accepted_202_with_retry_after_zero_is_polled_with_backoff_not_at_once() {
    for (int i = 0; i < 3; i++) {
      server.enqueue(new MockResponse.Builder().code(202).addHeader("Retry-After", "0")
          .addHeader("Location", "/payments/p-0/status").build());
    }
    server.enqueue(new MockResponse.Builder().code(200).body("{\"id\":\"p-0\"}").build());

    IntentOutcome outcome = client(clientBuilder().jitter(new MaxJitter())).execute(spec(BODY));

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(sleeper.sleeps()).containsExactly(
        Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400));
  }

  @Test
  void a_503_with_retry_after_zero_is_resent_by_the_engine_never_silently_by_okhttp()
      throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", "0").build());
    server.enqueue(created());
    IntentSpec spec = spec(BODY);

    assertThat(client().execute(spec)).isInstanceOf(IntentOutcome.Completed.class);

    assertThat(requests()).extracting(r -> r.getHeaders().get("Idempotency-Key"))
        .containsExactly(quoted(spec.key()), quoted(spec.key()));
    assertThat(events.attempts()).as("the body is one-shot for OkHttp: every resend is counted")
        .isEqualTo(2);
  }

  @Test
  void malformed_retry_after_is_ignored_and_reported() {
    server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", "soon-ish")
        .build());
    server.enqueue(created());

    assertThat(client().execute(spec(BODY))).isInstanceOf(IntentOutcome.Completed.class);

    assertThat(events.malformedRetryAfter()).isEqualTo(1);
    assertThat(sleeper.sleeps()).hasSize(1);
    assertThat(sleeper.sleeps().get(0)).isBetween(Duration.ZERO, Duration.ofMillis(100));
    assertThat(seen).filteredOn(e -> e instanceof IntentEvent.MalformedRetryAfter)
        .singleElement()
        .satisfies(e -> assertThat(((IntentEvent.MalformedRetryAfter) e).length())
            .isEqualTo("soon-ish".length()));
  }

  @Test
  void in_progress_409_is_waited_out_then_201_completes() throws Exception {
    server.enqueue(status(409));
    server.enqueue(created());
    IntentSpec spec = spec(BODY);

    IntentOutcome outcome = client().execute(spec);

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(events.inProgress()).isEqualTo(1);
    assertThat(requests()).extracting(r -> r.getHeaders().get("Idempotency-Key"))
        .containsExactly(quoted(spec.key()), quoted(spec.key()));
  }

  @Test
  void mismatch_422_becomes_a_key_conflict_and_is_never_resent() {
    server.enqueue(new MockResponse.Builder().code(422).body("{\"error\":\"mismatch\"}").build());
    IntentSpec spec = spec(BODY);
    IdempotentClient client = client();

    IntentOutcome outcome = client.execute(spec);

    assertThat(outcome).isInstanceOf(IntentOutcome.KeyConflict.class);
    assertThat(outcome.state()).isEqualTo(IntentState.KEY_CONFLICT);
    assertThat(events.mismatches()).isEqualTo(1);
    assertThat(client.execute(spec)).isEqualTo(outcome);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void accepted_202_with_location_is_polled_until_200() throws Exception {
    IntentSpec spec = spec(BODY).toBuilder().header("X-Tenant", "tenant-a").build();
    AtomicReference<String> pollUrlAtPoll = new AtomicReference<>();
    AtomicInteger polls = new AtomicInteger();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        if (request.getMethod().equals("POST")) {
          return new MockResponse.Builder().code(202).addHeader("Location", "/payments/p-1/status")
              .addHeader("Retry-After", "2").build();
        }
        pollUrlAtPoll.set(store.get(spec.id()).orElseThrow().pollUrl());
        return polls.incrementAndGet() == 1
            ? new MockResponse.Builder().code(202).addHeader("Retry-After", "1").build()
            : new MockResponse.Builder().code(200).body("{\"status\":\"paid\"}").build();
      }
    });

    IntentOutcome outcome = client().execute(spec);

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(new String(((IntentOutcome.Completed) outcome).response().body(),
        StandardCharsets.UTF_8)).isEqualTo("{\"status\":\"paid\"}");
    List<RecordedRequest> requests = requests();
    assertThat(requests).extracting(RecordedRequest::getMethod)
        .containsExactly("POST", "GET", "GET");
    assertThat(requests.get(1).getUrl().encodedPath()).isEqualTo("/payments/p-1/status");
    assertThat(requests.get(1).getHeaders().get("X-Tenant")).isEqualTo("tenant-a");
    assertThat(requests.get(1).getHeaders().get("Idempotency-Key")).isNull();
    assertThat(pollUrlAtPoll.get()).isEqualTo(server.url("/payments/p-1/status").toString());
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(1));
    assertThat(events.accepted()).isEqualTo(2);
  }

  @Test
  void accepted_202_without_location_resends_with_the_same_key() throws Exception {
    server.enqueue(status(202));
    server.enqueue(created());
    IntentSpec spec = spec(BODY);

    IntentOutcome outcome = client().execute(spec);

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    List<RecordedRequest> requests = requests();
    assertThat(requests).extracting(RecordedRequest::getMethod).containsExactly("POST", "POST");
    assertThat(requests).allSatisfy(r -> {
      assertThat(r.getHeaders().get("Idempotency-Key")).isEqualTo(quoted(spec.key()));
      assertThat(r.getBody().utf8()).isEqualTo(BODY);
    });
  }

  @Test
  void business_400_is_rejected_with_the_response() {
    server.enqueue(new MockResponse.Builder().code(400).body("{\"error\":\"card_declined\"}")
        .build());

    IntentOutcome outcome = client().execute(spec(BODY));

    assertThat(outcome).isInstanceOf(IntentOutcome.Rejected.class);
    assertThat(((IntentOutcome.Rejected) outcome).response().status()).isEqualTo(400);
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(events.rejected()).isEqualTo(1);
  }

  @Test
  void an_empty_retry_budget_delays_the_retry_and_the_intent_still_completes() {
    server.enqueue(status(503));
    server.enqueue(status(201));
    RetryBudget empty = RetryBudget.builder().capacity(0).refillPerSecond(20).build();

    IntentOutcome outcome = client(clientBuilder().retryBudget(empty)).execute(spec(BODY));

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(server.getRequestCount()).isEqualTo(2);
    // 5 tokens at 20 a second: the retry waits a quarter of a second, longer than the backoff.
    assertThat(sleeper.sleeps()).singleElement().satisfies(d ->
        assertThat(d).isBetween(Duration.ofMillis(200), Duration.ofMillis(250)));
    assertThat(seen).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(
        IntentEvent.RetryScheduled.class, r -> assertThat(r.cause()).contains("retry budget")));
  }

  @Test
  void a_retry_at_a_time_the_server_named_costs_no_budget() {
    server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", "1").build());
    server.enqueue(status(201));
    RetryBudget empty = RetryBudget.builder().capacity(0).refillPerSecond(0).build();

    IntentOutcome outcome = client(clientBuilder().retryBudget(empty)).execute(spec(BODY));

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(1));
    assertThat(events.budgetExhausted()).isZero();
  }

  @Test
  void the_retry_budget_refills_on_the_engine_clock() {
    for (int i = 0; i < 3; i++) {
      server.enqueue(status(503));
      server.enqueue(status(201));
    }
    // One retry empties the bucket; only the clock refills it, a token a second.
    RetryBudget budget = RetryBudget.builder().capacity(5).retryCost(5).successRefund(0)
        .refillPerSecond(1).build();
    IdempotentClient client = client(clientBuilder().jitter(new MaxJitter()).retryBudget(budget));
    assertThat(client.execute(spec(BODY))).isInstanceOf(IntentOutcome.Completed.class);
    Duration backoff = sleeper.sleeps().get(0);

    assertThat(client.execute(spec(BODY))).isInstanceOf(IntentOutcome.Completed.class);
    // The backoff the test's clock advanced refilled that much; the rest is waited for.
    Duration rest = Duration.ofSeconds(5).minus(backoff);
    assertThat(sleeper.sleeps().get(1)).as("waits for the refill measured on the test's clock")
        .isBetween(rest, rest.plusMillis(1));

    clock.advance(Duration.ofSeconds(5));
    seen.clear();
    assertThat(client.execute(spec(BODY))).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(sleeper.sleeps().get(2)).as("the clock moved: a full bucket, backoff only")
        .isEqualTo(backoff);
    assertThat(seen).noneSatisfy(e -> assertThat(e).isInstanceOfSatisfying(
        IntentEvent.RetryScheduled.class, r -> assertThat(r.cause()).contains("retry budget")));
  }

  @Test
  void empty_retry_budget_without_refill_fails_fast_and_keeps_the_intent_pending() {
    server.enqueue(status(503));
    IntentSpec spec = spec(BODY);
    RetryBudget empty = RetryBudget.builder().capacity(0).refillPerSecond(0).build();

    IntentOutcome outcome = client(clientBuilder().retryBudget(empty)).execute(spec);

    assertThat(outcome).isInstanceOfSatisfying(IntentOutcome.Pending.class, p -> {
      assertThat(p.reason()).isEqualTo(PendingReason.RETRY_BUDGET_EXHAUSTED);
      assertThat(p.cause()).isInstanceOf(RetryBudgetExhaustedException.class);
      assertThat(p.lastResponse().status()).isEqualTo(503);
    });
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(sleeper.sleeps()).isEmpty();
    assertThat(store.get(spec.id()).orElseThrow().state()).isEqualTo(IntentState.PENDING);
    assertThat(events.budgetExhausted()).isEqualTo(1);
  }

  @Test
  void deadline_with_only_timeouts_stays_pending_never_failed() throws Exception {
    for (int i = 0; i < 3; i++) {
      server.enqueue(stall());
    }
    IntentSpec spec = spec(BODY);
    IdempotentClient client = client(clientBuilder().jitter(new MaxJitter())
        .retryPolicy(RetryPolicy.builder()
            .maxAttempts(10)
            // Waits long against the attempts, so a slow first attempt on a loaded machine still
            // leaves exactly one more before the deadline.
            .baseDelay(Duration.ofMillis(2000))
            .maxDelay(Duration.ofMillis(2000))
            .deadline(Duration.ofSeconds(3))
            .attemptTimeout(Duration.ofMillis(150))
            .build()));

    IntentOutcome outcome = client.execute(spec);

    assertThat(outcome).isInstanceOfSatisfying(IntentOutcome.Pending.class, p -> {
      assertThat(p.reason()).isEqualTo(PendingReason.DEADLINE_EXCEEDED);
      assertThat(p.detail()).contains("no answer");
      assertThat(p.checkAgainAt()).isNotNull();
      assertThat(p.cause()).isInstanceOf(java.io.InterruptedIOException.class);
      assertThat(p.cause().getSuppressed()).hasSize(1);
    });
    assertThat(server.getRequestCount()).isEqualTo(2);
    IntentRecord stored = store.get(spec.id()).orElseThrow();
    assertThat(stored.state()).isEqualTo(IntentState.PENDING);
    assertThat(stored.attempts()).isEqualTo(2);
    assertThat(events.gaveUpUnknown()).isEqualTo(1);
  }

  @Test
  void changed_payload_under_a_used_key_is_refused_before_any_io() {
    server.enqueue(created());
    IntentSpec spec = spec(BODY);
    IdempotentClient client = client();
    client.execute(spec);
    IntentSpec changed = spec.toBuilder().jsonBody("{\"amount\":2000,\"currency\":\"JPY\"}")
        .build();

    assertThatThrownBy(() -> client.execute(changed))
        .isInstanceOf(PayloadMismatchException.class)
        .hasMessageContaining(spec.id().safeKey())
        .hasMessageNotContaining(spec.key());
    assertThatThrownBy(() -> client.submit(changed).join())
        .as("submit() reports the refusal through its future, like every store-dependent answer")
        .hasCauseInstanceOf(PayloadMismatchException.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void resubmitting_a_finished_intent_returns_the_stored_outcome_without_io() {
    server.enqueue(created());
    IntentSpec spec = spec(BODY);
    IdempotentClient client = client();
    IntentOutcome first = client.execute(spec);
    IntentSpec sameAgain = spec.toBuilder()
        .jsonBody("{ \"currency\": \"JPY\", \"amount\": 1000 }").build();

    IntentOutcome second = client.execute(sameAgain);
    IntentOutcome third = client.submit(spec).join();

    assertThat(second).isEqualTo(first);
    assertThat(third).isEqualTo(first);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void same_business_id_continues_the_existing_intent() {
    server.enqueue(created());
    IntentSpec first = IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post(server.url("/payments").toString()).jsonBody(BODY).businessId("order-7").build();
    IntentSpec again = IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post(server.url("/payments").toString()).jsonBody(BODY).businessId("order-7").build();
    IdempotentClient client = client();

    IntentOutcome one = client.execute(first);
    IntentOutcome two = client.execute(again);

    assertThat(two).isEqualTo(one);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void same_key_string_in_two_scopes_or_operations_is_three_separate_intents() {
    for (int i = 0; i < 3; i++) {
      server.enqueue(created());
    }
    IntentSpec.Builder base = IntentSpec.builder().post(server.url("/payments").toString())
        .jsonBody(BODY).keyStrategy(KeyStrategy.existing("shared-key"));
    IntentSpec a = base.operation("create-payment").scope("tenant-a").build();
    IntentSpec b = base.operation("create-payment").scope("tenant-b").build();
    IntentSpec c = base.operation("refund").scope("tenant-a").build();
    IdempotentClient client = client();

    for (IntentSpec spec : List.of(a, b, c)) {
      assertThat(client.execute(spec)).isInstanceOf(IntentOutcome.Completed.class);
    }

    assertThat(server.getRequestCount()).isEqualTo(3);
    assertThat(List.of(a.id(), b.id(), c.id()))
        .allSatisfy(id -> assertThat(store.get(id)).isPresent());
  }

  @Test
  void eight_threads_submitting_one_intent_share_one_drive() throws Exception {
    IntentSpec spec = spec(BODY);
    int threads = 8;
    CountDownLatch allCalling = new CountDownLatch(threads);
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger maxInFlight = new AtomicInteger();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        allCalling.await(5, TimeUnit.SECONDS);
        inFlight.decrementAndGet();
        return created();
      }
    });
    IdempotentClient client = client();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<IntentOutcome>> results = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        boolean blocking = i % 2 == 0;
        results.add(pool.submit(() -> {
          allCalling.countDown();
          return blocking ? client.execute(spec) : client.submit(spec).get(10, TimeUnit.SECONDS);
        }));
      }
      Set<IntentOutcome> outcomes = new HashSet<>();
      for (Future<IntentOutcome> f : results) {
        outcomes.add(f.get(10, TimeUnit.SECONDS));
      }
      assertThat(outcomes).hasSize(1);
      assertThat(outcomes.iterator().next()).isInstanceOf(IntentOutcome.Completed.class);
    } finally {
      pool.shutdownNow();
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(maxInFlight.get()).isEqualTo(1);
    assertThat(events.attempts()).isEqualTo(1);
  }

  @Test
  void resume_pending_resends_unfinished_records_with_the_same_key_and_bytes() throws Exception {
    server.enqueue(status(503));
    IntentSpec spec = spec(BODY);
    IntentOutcome first = client(clientBuilder().retryPolicy(
        RetryPolicy.builder().maxAttempts(1).build())).execute(spec);
    assertThat(first).isInstanceOf(IntentOutcome.Pending.class);
    server.enqueue(created());

    List<CompletableFuture<IntentOutcome>> resumed = client().resumePending();

    assertThat(resumed).hasSize(1);
    assertThat(resumed.get(0).get(10, TimeUnit.SECONDS))
        .isInstanceOf(IntentOutcome.Completed.class);
    assertThat(requests()).allSatisfy(r -> {
      assertThat(r.getHeaders().get("Idempotency-Key")).isEqualTo(quoted(spec.key()));
      assertThat(r.getBody().toByteArray()).isEqualTo(spec.body());
    });
    assertThat(store.listUnfinished()).isEmpty();
  }

  @Test
  void resume_honours_the_wait_the_last_drive_still_owed() {
    server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", "4").build());
    IntentSpec spec = spec(BODY);
    IntentOutcome first = client(clientBuilder().retryPolicy(
        RetryPolicy.builder().maxAttempts(1).build())).execute(spec);
    assertThat(first).isInstanceOfSatisfying(IntentOutcome.Pending.class,
        p -> assertThat(p.checkAgainAt()).isEqualTo(T0.plusSeconds(4)));
    clock.advance(Duration.ofSeconds(1));
    server.enqueue(created());

    assertThat(client().resumePending().get(0).join()).isInstanceOf(IntentOutcome.Completed.class);

    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(3));
  }

  @Test
  void failing_header_provider_sends_nothing_and_the_attempt_is_retried() throws Exception {
    server.enqueue(created());
    AtomicInteger calls = new AtomicInteger();
    IdempotentClient client = client(clientBuilder().headerProvider((id, url) -> {
      if (calls.incrementAndGet() == 1) {
        throw new IllegalStateException("token endpoint down");
      }
      return Map.of("Authorization", "Bearer fresh");
    }));

    assertThat(client.execute(spec(BODY))).isInstanceOf(IntentOutcome.Completed.class);

    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(server.takeRequest().getHeaders().get("Authorization")).isEqualTo("Bearer fresh");
    assertThat(events.attempts()).isEqualTo(2);
  }

  @Test
  void failing_reconciler_leaves_the_record_for_the_next_resume() {
    server.enqueue(status(503));
    IntentSpec spec = spec(BODY);
    client(clientBuilder().retryPolicy(RetryPolicy.builder().maxAttempts(1).build()))
        .execute(spec);
    clock.advance(Duration.ofHours(25));

    IntentOutcome outcome = client(clientBuilder().reconciler(record -> {
      throw new java.io.IOException("lookup failed");
    })).resumePending().get(0).join();

    assertThat(outcome).isInstanceOfSatisfying(IntentOutcome.NeedsReconciliation.class,
        n -> assertThat(n.reason()).contains("reconciler failed"));
    assertThat(store.listUnfinished()).singleElement()
        .satisfies(r -> assertThat(r.state()).isEqualTo(IntentState.NEEDS_RECONCILIATION));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void gate_closed_until_the_deadline_leaves_the_intent_pending_offline() {
    IdempotentClient client = client(clientBuilder()
        .networkGate(new NetworkGate() {
          @Override
          public boolean isOpen() {
            return false;
          }

          @Override
          public void whenOpen(Runnable action) {}
        })
        .retryPolicy(RetryPolicy.builder().deadline(Duration.ofMillis(200)).build()));

    IntentOutcome outcome = client.execute(spec(BODY));

    assertThat(outcome).isInstanceOfSatisfying(IntentOutcome.Pending.class,
        p -> assertThat(p.reason()).isEqualTo(PendingReason.OFFLINE));
    assertThat(server.getRequestCount()).isZero();
    assertThat(events.attempts()).isZero();
  }

  @Test
  void resume_continues_polling_the_stored_status_url_instead_of_resending() throws Exception {
    server.enqueue(new MockResponse.Builder().code(202).addHeader("Location", "/status/9").build());
    IntentSpec spec = spec(BODY);
    IntentOutcome first = client(clientBuilder().retryPolicy(
        RetryPolicy.builder().maxAttempts(1).build())).execute(spec);
    assertThat(first).isInstanceOfSatisfying(IntentOutcome.Pending.class,
        p -> assertThat(p.reason()).isEqualTo(PendingReason.STILL_PROCESSING));
    server.enqueue(new MockResponse.Builder().code(200).body("{\"status\":\"paid\"}").build());

    IntentOutcome resumed = client().resumePending().get(0).get(10, TimeUnit.SECONDS);

    assertThat(resumed).isInstanceOf(IntentOutcome.Completed.class);
    List<RecordedRequest> requests = requests();
    assertThat(requests).extracting(RecordedRequest::getMethod).containsExactly("POST", "GET");
    assertThat(requests.get(1).getUrl().encodedPath()).isEqualTo("/status/9");
  }

  @Test
  void record_older_than_the_key_retention_goes_to_reconciliation_and_is_not_resent() {
    server.enqueue(status(503));
    IntentSpec spec = spec(BODY);
    client(clientBuilder().retryPolicy(RetryPolicy.builder().maxAttempts(1).build()))
        .execute(spec);
    clock.advance(Duration.ofHours(25));

    IntentOutcome outcome = client().resumePending().get(0).join();

    assertThat(outcome).isInstanceOf(IntentOutcome.NeedsReconciliation.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(store.get(spec.id()).orElseThrow().state())
        .isEqualTo(IntentState.NEEDS_RECONCILIATION);
    assertThat(events.needsReconciliation()).isEqualTo(1);
  }

  @Test
  void reconciler_can_settle_a_record_past_the_key_retention() {
    server.enqueue(status(503));
    IntentSpec spec = spec(BODY);
    client(clientBuilder().retryPolicy(RetryPolicy.builder().maxAttempts(1).build()))
        .execute(spec);
    clock.advance(Duration.ofHours(25));
    StoredResponse evidence = StoredResponse.of(200, Map.of(),
        "{\"found\":true}".getBytes(StandardCharsets.UTF_8));

    IntentOutcome outcome = client(clientBuilder()
        .reconciler(record -> Reconciler.Resolution.completed(evidence)))
        .resumePending().get(0).join();

    assertThat(outcome).isEqualTo(new IntentOutcome.Completed(spec.id(), evidence, false));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void replayed_server_error_needs_reconciliation_instead_of_endless_retries() {
    server.enqueue(new MockResponse.Builder().code(500)
        .addHeader("Idempotent-Replayed", "true").build());
    IntentSpec spec = spec(BODY);

    IntentOutcome outcome = client(clientBuilder().dialect(Dialects.stripe())).execute(spec);

    assertThat(outcome).isInstanceOf(IntentOutcome.NeedsReconciliation.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void closed_network_gate_pauses_attempts_until_it_opens() throws Exception {
    server.enqueue(created());
    TestGate gate = new TestGate();
    IdempotentClient client = client(clientBuilder().networkGate(gate));

    CompletableFuture<IntentOutcome> future = client.submit(spec(BODY));
    gate.awaitWaiter();
    assertThat(server.getRequestCount()).isZero();
    assertThat(future).isNotDone();
    gate.open();

    assertThat(future.get(10, TimeUnit.SECONDS)).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void header_provider_adds_credentials_that_are_never_stored() throws Exception {
    server.enqueue(created());
    IntentSpec spec = spec(BODY);
    IdempotentClient client = client(clientBuilder()
        .headerProvider((id, url) -> Map.of("Authorization", "Bearer secret-token")));

    client.execute(spec);

    assertThat(server.takeRequest().getHeaders().get("Authorization"))
        .isEqualTo("Bearer secret-token");
    IntentRecord stored = store.get(spec.id()).orElseThrow();
    assertThat(stored.headers().keySet()).noneMatch(h -> h.equalsIgnoreCase("Authorization"));
  }

  @Test
  void listener_exceptions_do_not_change_the_outcome() {
    server.enqueue(created());
    IdempotentClient client = client(clientBuilder().listener(event -> {
      throw new IllegalStateException("listener bug");
    }));

    assertThat(client.execute(spec(BODY))).isInstanceOf(IntentOutcome.Completed.class);
  }

  /** A gate the test opens by hand; it reports when the driver starts waiting. */
  private static final class TestGate implements NetworkGate {
    private final List<Runnable> waiting = new CopyOnWriteArrayList<>();
    private final CountDownLatch waiter = new CountDownLatch(1);
    private volatile boolean open;

    @Override
    public boolean isOpen() {
      return open;
    }

    @Override
    public void whenOpen(Runnable action) {
      if (open) {
        action.run();
        return;
      }
      waiting.add(action);
      waiter.countDown();
    }

    void awaitWaiter() throws InterruptedException {
      assertThat(waiter.await(10, TimeUnit.SECONDS)).isTrue();
    }

    void open() {
      open = true;
      waiting.forEach(Runnable::run);
    }
  }

  @Test
  void a_repeat_of_a_finished_intent_reads_the_store_once_and_then_the_cache() throws Exception {
    AtomicInteger reads = new AtomicInteger();
    IntentStore counting = new ForwardingIntentStore(store) {
      @Override
      public Optional<IntentRecord> get(IntentId id) {
        reads.incrementAndGet();
        return super.get(id);
      }
    };
    IdempotentClient client = client(clientBuilder().store(counting));
    server.enqueue(created());
    IntentSpec spec = spec(BODY);

    assertThat(client.execute(spec)).isInstanceOf(IntentOutcome.Completed.class);
    int afterFinish = reads.get();
    assertThat(client.execute(spec)).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(reads.get()).isEqualTo(afterFinish + 1);
    assertThat(client.execute(spec)).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(reads.get()).isEqualTo(afterFinish + 1);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  /** One intent carries its own policy, stored with the record, kept by a resume. */
  @Test
  void an_intents_own_retry_policy_drives_it_and_a_resume_by_another_client_keeps_it()
      throws Exception {
    RetryPolicy patient = RetryPolicy.builder().maxAttempts(3).baseDelay(Duration.ofMillis(10))
        .deadline(Duration.ofMinutes(1)).attemptTimeout(Duration.ofMillis(500)).build();
    RetryPolicy oneShot = RetryPolicy.builder().maxAttempts(1).build();
    IntentSpec spec = spec(BODY).toBuilder().retryPolicy(patient).build();
    IntentRecord stored = client().newRecord(spec);
    store.create(stored);
    server.enqueue(status(503));
    server.enqueue(status(503));
    server.enqueue(created());

    IdempotentClient other = client(clientBuilder().retryPolicy(oneShot));
    IntentOutcome outcome = other.resume(spec.id()).get(10, TimeUnit.SECONDS);

    assertThat(store.get(spec.id()).orElseThrow().retryPolicy()).isEqualTo(patient);
    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(server.getRequestCount()).isEqualTo(3);

    server.enqueue(status(503));
    IntentOutcome plain = other.execute(spec(BODY.replace("1000", "7")));
    assertThat(plain).isInstanceOf(IntentOutcome.Pending.class);
    assertThat(server.getRequestCount()).isEqualTo(4);
  }
}
