package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.event.EventCounter;
import dev.oncely.client.internal.http.Scopes;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.testing.Fault;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The certainty rules, each proven through both entry points (the intent API and the
 * interceptor): what an HTTP answer proves, and so which outcome it may produce. One test per
 * rule that applies to both; {@link CertaintyIntentApiTest} has those that only the intent API
 * has (resume, header provider, futures, store failures).
 */
class CertaintyRulesTest {
  private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");
  private static final String BODY = "{\"amount\":1000,\"currency\":\"JPY\"}";

  @StartStop
  private final MockWebServer server = new MockWebServer();
  @StartStop
  private final MockWebServer foreign = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final EventCounter events = new EventCounter();
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private final List<AutoCloseable> open = new ArrayList<>();

  /** The two ways an app sends an intent; every rule holds for both. */
  enum Entry { INTENT_API, INTERCEPTOR }

  /** What one intent ended as: its stored record, and the HTTP answer the app saw (interceptor). */
  private record Result(IntentRecord record, IntentOutcome outcome, int status, IOException failure) {
    IntentState state() {
      return record.state();
    }
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private static RetryPolicy policy() {
    return RetryPolicy.builder()
        .maxAttempts(8)
        .baseDelay(Duration.ofMillis(100))
        .maxDelay(Duration.ofSeconds(5))
        .deadline(Duration.ofMinutes(5))
        // Long enough for a loaded build machine; a stall costs this much real time.
        .attemptTimeout(Duration.ofMillis(1500))
        .build();
  }

  /** Origins besides the intent's own that both entry points may send credentials to. */
  private String[] listedOrigins = {};

  private Result send(Entry entry, String path) throws Exception {
    return send(entry, path, "Bearer secret-token");
  }

  private Result send(Entry entry, String path, String token) throws Exception {
    if (entry == Entry.INTENT_API) {
      IdempotentClient client = IdempotentClient.builder().store(store).clock(clock)
          .sleeper(sleeper).listener(events).retryPolicy(policy())
          .headerProvider((id, url) -> Map.of("Authorization", token))
          .credentialOrigins(listedOrigins)
          .build();
      open.add(client);
      IntentSpec spec = IntentSpec.builder().operation("create-payment").scope("tenant-a")
          .post(server.url(path).toString()).jsonBody(BODY).header("X-Tenant", "tenant-a")
          .build();
      IntentOutcome outcome = client.execute(spec);
      return new Result(store.get(spec.id()).orElseThrow(), outcome, 0, null);
    }
    OkHttpClient http = IdempotencyInterceptor.builder().store(store).clock(clock).sleeper(sleeper)
            .listener(events).retryPolicy(policy()).credentialOrigins(listedOrigins).build()
            .installOn(new OkHttpClient.Builder())
        .build();
    String key = "k-" + System.nanoTime();
    Request request = new Request.Builder().url(server.url(path))
        .header("Authorization", token).header("X-Tenant", "tenant-a")
        .header("Idempotency-Key", "\"" + key + "\"")
        .post(RequestBody.create(BODY, MediaType.get("application/json"))).build();
    int status = 0;
    IOException failure = null;
    try (Response response = http.newCall(request).execute()) {
      status = response.code();
    } catch (IOException e) {
      failure = e;
    }
    IntentId id = IntentId.of(Scopes.ofRequest(request), "POST " + path, key);
    return new Result(store.get(id).orElseThrow(), null, status, failure);
  }

  private static MockResponse status(int code) {
    return new MockResponse.Builder().code(code).build();
  }

  private static MockResponse stall() {
    return Fault.stallAfterCommit().applyTo(new MockResponse.Builder().code(201)).build();
  }

  private static List<RecordedRequest> taken(MockWebServer from) throws InterruptedException {
    List<RecordedRequest> all = new ArrayList<>();
    for (int i = 0; i < from.getRequestCount(); i++) {
      all.add(from.takeRequest(5, TimeUnit.SECONDS));
    }
    return all;
  }

  // A gateway 5xx (Cloudflare's 524 is sent after the origin got the request) is never REJECTED.
  @ParameterizedTest
  @EnumSource(Entry.class)
  void gateway_5xx_after_the_origin_got_the_request_is_retried_with_the_same_key_never_rejected(
      Entry entry) throws Exception {
    for (int code : new int[] {520, 524, 530, 507, 598, 599}) {
      server.enqueue(status(code));
    }
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"p\"}").build());

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.COMPLETED);
    List<RecordedRequest> requests = taken(server);
    assertThat(requests).hasSize(7);
    assertThat(requests).extracting(r -> r.getHeaders().get("Idempotency-Key")).containsOnly(
        requests.get(0).getHeaders().get("Idempotency-Key"));
  }

  @ParameterizedTest
  @EnumSource(Entry.class)
  void a_5xx_that_never_ends_leaves_the_intent_pending_not_rejected(Entry entry) throws Exception {
    for (int i = 0; i < 8; i++) {
      server.enqueue(status(524));
    }

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.PENDING);
  }

  // A 301 on the POST must not become a GET whose 200 is stored as Completed.
  @ParameterizedTest
  @EnumSource(Entry.class)
  void a_301_on_the_submit_is_never_completed_by_the_get_it_points_to(Entry entry)
      throws Exception {
    server.enqueue(new MockResponse.Builder().code(301).addHeader("Location", "/moved").build());
    server.enqueue(new MockResponse.Builder().code(200).body("a page").build());

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.NEEDS_RECONCILIATION);
    assertThat(result.record().reason()).contains("301").contains("URL may be wrong");
    if (entry == Entry.INTERCEPTOR) {
      assertThat(result.failure()).isInstanceOf(IntentIOException.class)
          .hasCauseInstanceOf(NeedsReconciliationException.class);
    } else {
      assertThat(server.getRequestCount()).as("never turned into a GET").isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Entry.class)
  void a_303_on_the_submit_is_not_read_as_done(Entry entry) throws Exception {
    server.enqueue(new MockResponse.Builder().code(303).addHeader("Location", "/login").build());
    server.enqueue(new MockResponse.Builder().code(200).body("<html>sign in</html>").build());

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.NEEDS_RECONCILIATION);
  }

  @ParameterizedTest
  @EnumSource(Entry.class)
  void a_307_within_the_origin_resends_the_same_key_and_bytes_there(Entry entry) throws Exception {
    server.enqueue(new MockResponse.Builder().code(307).addHeader("Location", "/v2/payments")
        .build());
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"p\"}").build());

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.COMPLETED);
    List<RecordedRequest> requests = taken(server);
    assertThat(requests).hasSize(2);
    assertThat(requests.get(1).getMethod()).isEqualTo("POST");
    assertThat(requests.get(1).getUrl().encodedPath()).isEqualTo("/v2/payments");
    assertThat(requests.get(1).getBody().utf8()).isEqualTo(BODY);
    assertThat(requests.get(1).getHeaders().get("Idempotency-Key"))
        .isEqualTo(requests.get(0).getHeaders().get("Idempotency-Key"));
  }

  @ParameterizedTest
  @EnumSource(Entry.class)
  void a_307_to_another_origin_is_never_completed(Entry entry) throws Exception {
    server.enqueue(new MockResponse.Builder().code(307)
        .addHeader("Location", foreign.url("/payments").toString()).build());
    foreign.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"p\"}").build());

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.NEEDS_RECONCILIATION);
    if (entry == Entry.INTENT_API) {
      assertThat(foreign.getRequestCount()).as("the body never leaves the intent's origin")
          .isZero();
    }
  }

  // A 202 Location on another origin is polled without the HeaderProvider's credentials.
  @ParameterizedTest
  @EnumSource(Entry.class)
  void a_status_url_on_another_origin_is_polled_without_credentials_or_stored_headers(Entry entry)
      throws Exception {
    server.enqueue(new MockResponse.Builder().code(202)
        .addHeader("Location", foreign.url("/status/p-1").toString()).build());
    foreign.enqueue(new MockResponse.Builder().code(200).body("{\"id\":\"p-1\"}").build());

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.COMPLETED);
    RecordedRequest poll = foreign.takeRequest(5, TimeUnit.SECONDS);
    assertThat(poll.getMethod()).isEqualTo("GET");
    assertThat(poll.getHeaders().get("Authorization")).isNull();
    assertThat(poll.getHeaders().get("X-Tenant")).isNull();
    assertThat(poll.getHeaders().get("Idempotency-Key")).isNull();
  }

  // Both wires honour the origins the app listed for credentials.
  @ParameterizedTest
  @EnumSource(Entry.class)
  void a_status_url_on_a_listed_origin_is_polled_with_the_credentials(Entry entry)
      throws Exception {
    listedOrigins = new String[] {"http://" + foreign.getHostName() + ":" + foreign.getPort()};
    server.enqueue(new MockResponse.Builder().code(202)
        .addHeader("Location", foreign.url("/status/p-1").toString()).build());
    foreign.enqueue(new MockResponse.Builder().code(200).body("{\"id\":\"p-1\"}").build());

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.COMPLETED);
    RecordedRequest poll = foreign.takeRequest(5, TimeUnit.SECONDS);
    assertThat(poll.getMethod()).isEqualTo("GET");
    assertThat(poll.getHeaders().get("Authorization")).isEqualTo("Bearer secret-token");
    assertThat(poll.getHeaders().get("Idempotency-Key")).isNull();
  }

  // A 403/401/400 of the status URL never marks an accepted payment REJECTED, nor a 422 there
  // KeyConflict.
  @ParameterizedTest
  @EnumSource(Entry.class)
  void refusals_of_the_status_url_are_polls_not_refusals_of_the_intent(Entry entry)
      throws Exception {
    server.enqueue(new MockResponse.Builder().code(202).addHeader("Location", "/status/p-1")
        .build());
    server.enqueue(status(403));
    server.enqueue(status(401));
    server.enqueue(status(400));
    server.enqueue(status(422));
    server.enqueue(new MockResponse.Builder().code(200).body("{\"status\":\"paid\"}").build());

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.COMPLETED);
    assertThat(taken(server)).extracting(RecordedRequest::getMethod)
        .containsExactly("POST", "GET", "GET", "GET", "GET", "GET");
  }

  // A 4xx on a retry (token expired, firewall, routing) is not trusted as a refusal.
  @ParameterizedTest
  @EnumSource(Entry.class)
  void an_auth_answer_to_a_retry_after_a_timeout_is_not_a_refusal(Entry entry) throws Exception {
    server.enqueue(stall());
    server.enqueue(status(401));
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"p\"}").build());

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.COMPLETED);
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  @ParameterizedTest
  @EnumSource(Entry.class)
  void routing_answers_after_a_maybe_delivered_attempt_end_pending_never_rejected(Entry entry)
      throws Exception {
    server.enqueue(stall());
    for (int i = 0; i < 6; i++) {
      server.enqueue(status(404));
    }

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.PENDING);
    assertThat(result.record().reason()).startsWith(PendingReason.AMBIGUOUS_ANSWER.name());
    assertThat(server.getRequestCount()).isEqualTo(1 + 1 + 2);
    if (entry == Entry.INTERCEPTOR) {
      assertThat(result.failure()).as("the app never sees the 404 as a refusal")
          .isInstanceOf(IntentIOException.class).hasCauseInstanceOf(IntentPendingException.class);
    }
  }

  @ParameterizedTest
  @EnumSource(Entry.class)
  void a_validation_error_after_a_timeout_is_not_a_refusal(Entry entry) throws Exception {
    server.enqueue(stall());
    for (int i = 0; i < 3; i++) {
      server.enqueue(status(400));
    }

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.PENDING);
    assertThat(result.record().reason()).startsWith(PendingReason.AMBIGUOUS_ANSWER.name());
  }

  @ParameterizedTest
  @EnumSource(Entry.class)
  void a_refusal_of_the_first_delivery_is_final(Entry entry) throws Exception {
    server.enqueue(status(403));

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.REJECTED);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  // A mismatch answer to a byte-identical retry is not a KeyConflict.
  @ParameterizedTest
  @EnumSource(Entry.class)
  void a_mismatch_answer_to_a_byte_identical_retry_needs_reconciliation(Entry entry)
      throws Exception {
    server.enqueue(stall());
    server.enqueue(status(422));

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.NEEDS_RECONCILIATION);
    assertThat(result.record().reason()).contains("contradicts itself");
  }

  @ParameterizedTest
  @EnumSource(Entry.class)
  void a_mismatch_answer_to_the_first_delivery_is_a_key_conflict(Entry entry) throws Exception {
    server.enqueue(status(422));

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.KEY_CONFLICT);
  }

  // A replayed 202 without Location is resent a bounded number of times, not until the deadline.
  @ParameterizedTest
  @EnumSource(Entry.class)
  void a_202_without_a_status_url_is_resent_a_bounded_number_of_times_then_pending(Entry entry)
      throws Exception {
    for (int i = 0; i < 8; i++) {
      server.enqueue(status(202));
    }

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.PENDING);
    assertThat(result.record().reason()).startsWith(PendingReason.NO_STATUS_URL.name());
    assertThat(server.getRequestCount())
        .isEqualTo(1 + dev.oncely.client.dialect.Dialects.DEFAULT_MAX_BLIND_RESENDS);
    if (entry == Entry.INTENT_API) {
      IntentOutcome.Pending pending = (IntentOutcome.Pending) result.outcome();
      assertThat(pending.reason()).isEqualTo(PendingReason.NO_STATUS_URL);
      assertThat(pending.checkAgainAt()).isNotNull();
    }
  }

  @ParameterizedTest
  @EnumSource(Entry.class)
  void every_outcome_is_recorded_with_the_maybe_delivered_mark_once_an_attempt_may_have_landed(
      Entry entry) throws Exception {
    server.enqueue(stall());
    server.enqueue(new MockResponse.Builder().code(201).body("{}").build());

    Result result = send(entry, "/payments");

    assertThat(result.state()).isEqualTo(IntentState.COMPLETED);
    assertThat(result.record().maybeDelivered()).isTrue();
    assertThat(result.record().keyHeader()).isEqualTo("Idempotency-Key");
  }
}
