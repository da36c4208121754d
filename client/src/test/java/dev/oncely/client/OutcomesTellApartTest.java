package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.testing.WatchedStore;
import dev.oncely.testing.Fault;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

/**
 * What an app reads about an intent it cannot see finish, through both entry points, against a
 * real server (MockWebServer) and real OkHttp: an unknown outcome through the interceptor is an
 * {@link IntentIOException} carrying the {@link IntentOutcome} (never a bare socket error), a call
 * the app canceled keeps OkHttp's own exception, {@code outcomeOf} by tag or id reads {@link
 * PendingReason#IN_PROGRESS} (never {@link PendingReason#DRIVEN_ELSEWHERE}) while this process
 * drives the intent, and the stored attempt count includes the attempt on the wire.
 */
class OutcomesTellApartTest {
  private static final MediaType JSON = MediaType.get("application/json");
  private static final String BODY = "{\"amount\":1000,\"currency\":\"JPY\"}";
  private static final IntentTag ORDER = IntentTag.builder().operation("create-payment")
      .scope("tenant-a").businessId("order-1").build();

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final WatchedStore store = new WatchedStore(new InMemoryIntentStore());

  private static MockResponse stall() {
    return Fault.stallAfterCommit().applyTo(new MockResponse.Builder().code(201)).build();
  }

  private static MockResponse created() {
    return new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}").build();
  }

  /** Retries at once (no backoff), each attempt timing out after {@code timeout}. */
  private static RetryPolicy policy(int attempts, Duration timeout) {
    return RetryPolicy.builder().maxAttempts(attempts).baseDelay(Duration.ZERO)
        .maxDelay(Duration.ZERO).attemptTimeout(timeout).deadline(Duration.ofSeconds(30)).build();
  }

  private Request tagged() {
    return new Request.Builder().url(server.url("/payments")).tag(IntentTag.class, ORDER)
        .post(RequestBody.create(BODY, JSON)).build();
  }

  private IntentRecord awaitRecord(Predicate<IntentRecord> done) throws InterruptedException {
    IntentRecord r = store.await(() -> store.findByBusinessId("tenant-a", "create-payment",
        "order-1").filter(done).orElse(null), Duration.ofSeconds(10));
    if (r == null) {
      throw new AssertionError("the record never got there: " + store.findByBusinessId(
          "tenant-a", "create-payment", "order-1"));
    }
    return r;
  }

  @Test
  void an_unknown_outcome_through_the_interceptor_is_an_intent_io_exception_with_the_outcome()
      throws Exception {
    server.enqueue(stall());
    server.enqueue(stall());
    IdempotencyInterceptor oncely = IdempotencyInterceptor.builder().store(store)
        .retryPolicy(policy(2, Duration.ofMillis(200))).build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder()).build();

    assertThatThrownBy(() -> app.newCall(tagged()).execute())
        .isInstanceOfSatisfying(IntentIOException.class, e -> {
          assertThat(e.getCause()).isInstanceOf(IntentPendingException.class)
              .hasCauseInstanceOf(SocketTimeoutException.class);
          assertThat(e.outcome()).get().isInstanceOfSatisfying(IntentOutcome.Pending.class,
              p -> {
                assertThat(p.reason()).isEqualTo(PendingReason.ATTEMPTS_EXHAUSTED);
                assertThat(p.detail()).contains("attempt 2 got no answer");
              });
        });

    // Java's look-up by tag, on the interceptor, reads what the exception said.
    assertThat(oncely.outcomeOf(ORDER)).get().isInstanceOfSatisfying(IntentOutcome.Pending.class,
        p -> assertThat(p.reason()).isEqualTo(PendingReason.ATTEMPTS_EXHAUSTED));
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void a_call_the_app_canceled_keeps_okhttps_exception_and_the_record_says_what_is_known()
      throws Exception {
    server.enqueue(stall());
    IdempotencyInterceptor oncely = IdempotencyInterceptor.builder().store(store)
        .retryPolicy(policy(3, Duration.ofSeconds(5))).build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder()).build();
    Call call = app.newCall(tagged());
    CompletableFuture<Object> running = CompletableFuture.supplyAsync(() -> {
      try (Response response = call.execute()) {
        return response.code();
      } catch (IOException e) {
        return e;
      }
    });
    server.takeRequest(5, TimeUnit.SECONDS);

    // While the attempt is on the wire, this process drives it: IN_PROGRESS, never elsewhere.
    assertThat(oncely.outcomeOf(ORDER)).get().isInstanceOfSatisfying(IntentOutcome.Pending.class,
        p -> assertThat(p.reason()).isEqualTo(PendingReason.IN_PROGRESS));
    call.cancel();

    assertThat(running.get(5, TimeUnit.SECONDS)).isInstanceOfSatisfying(IOException.class,
        e -> assertThat(e).isNotInstanceOf(IntentIOException.class));
    awaitRecord(r -> r.state() == IntentState.PENDING);
    assertThat(oncely.outcomeOf(ORDER)).get().isInstanceOfSatisfying(IntentOutcome.Pending.class,
        p -> assertThat(p.reason()).isEqualTo(PendingReason.INTERRUPTED));
  }

  @Test
  void the_stored_attempt_count_holds_the_attempt_on_the_wire_after_an_immediate_retry()
      throws Exception {
    server.enqueue(stall());
    server.enqueue(stall());
    server.enqueue(created());
    IdempotencyInterceptor oncely = IdempotencyInterceptor.builder().store(store)
        .retryPolicy(policy(3, Duration.ofMillis(400))).build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder()).build();
    CompletableFuture<Object> running = CompletableFuture.supplyAsync(() -> {
      try (Response response = app.newCall(tagged()).execute()) {
        return response.code();
      } catch (IOException e) {
        return e;
      }
    });

    server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(awaitRecord(r -> true).attempts()).isEqualTo(1);
    server.takeRequest(5, TimeUnit.SECONDS);
    // The server has seen two attempts and the second is on the wire: the store says 2.
    IntentRecord second = awaitRecord(r -> r.attempts() == 2);
    assertThat(second.state()).isEqualTo(IntentState.IN_FLIGHT);
    server.takeRequest(5, TimeUnit.SECONDS);
    awaitRecord(r -> r.attempts() == 3);

    assertThat(running.get(5, TimeUnit.SECONDS)).isEqualTo(201);
    assertThat(awaitRecord(r -> r.state() == IntentState.COMPLETED).attempts()).isEqualTo(3);
  }

  @Test
  void a_resumed_intent_with_a_wait_owed_counts_its_attempt_before_sending_it() throws Exception {
    server.enqueue(stall());
    server.enqueue(created());
    Instant now = Instant.now();
    IdempotentClient client = IdempotentClient.builder().store(store)
        .retryPolicy(policy(2, Duration.ofMillis(400))).build();
    try (client) {
      IntentSpec spec = IntentSpec.builder().operation("create-payment").scope("tenant-a")
          .businessId("order-1").post(server.url("/payments").toString()).jsonBody(BODY).build();
      // A record an earlier drive parked with a wait still owed (one attempt made).
      IntentRecord parked = client.newRecord(spec).toBuilder().state(IntentState.PENDING)
          .attempts(1).maybeDelivered(true).nextAttemptAt(now.plusMillis(300))
          .reason(PendingReason.DEADLINE_EXCEEDED.recordText("attempt 1 got no answer"))
          .build();
      store.create(parked);
      CompletableFuture<IntentOutcome> resumed = client.resume(spec.id());

      server.takeRequest(5, TimeUnit.SECONDS);
      IntentRecord onTheWire = awaitRecord(r -> r.attempts() == 2);
      assertThat(onTheWire.state()).isEqualTo(IntentState.IN_FLIGHT);
      server.takeRequest(5, TimeUnit.SECONDS);
      assertThat(resumed.get(5, TimeUnit.SECONDS)).isInstanceOf(IntentOutcome.Completed.class);
      assertThat(store.get(spec.id()).orElseThrow().attempts()).isEqualTo(3);
    }
  }

  @Test
  void a_caller_that_stopped_waiting_reads_its_own_clients_drive_as_in_progress()
      throws Exception {
    server.enqueue(stall());
    server.enqueue(created());
    IdempotentClient client = IdempotentClient.builder().store(store)
        .retryPolicy(policy(2, Duration.ofMillis(500))).build();
    try (client) {
      IntentSpec spec = IntentSpec.builder().operation("create-payment").scope("tenant-a")
          .businessId("order-1").post(server.url("/payments").toString()).jsonBody(BODY).build();
      CompletableFuture<IntentOutcome> mine = client.submit(spec);
      server.takeRequest(5, TimeUnit.SECONDS);

      mine.cancel(true);

      // The drive goes on in this client: it is in progress here, not driven elsewhere.
      assertThat(client.outcomeOf(spec.id())).get().isInstanceOfSatisfying(
          IntentOutcome.Pending.class, p -> assertThat(p.reason())
              .isEqualTo(PendingReason.IN_PROGRESS));
      assertThat(client.outcomeOf(ORDER)).get().isInstanceOfSatisfying(
          IntentOutcome.Pending.class, p -> assertThat(p.reason())
              .isEqualTo(PendingReason.IN_PROGRESS));
      server.takeRequest(5, TimeUnit.SECONDS);
      awaitRecord(r -> r.state() == IntentState.COMPLETED);
      assertThat(client.outcomeOf(spec.id())).get().isInstanceOf(IntentOutcome.Completed.class);
    }
  }
}
