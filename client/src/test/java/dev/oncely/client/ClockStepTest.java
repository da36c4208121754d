package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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

/**
 * A wall clock that steps: deadlines and waits inside one process run on the
 * monotonic clock, a wait stored across a restart is never longer than the policy could have
 * asked, and a record's age under the key retention is never judged younger than its own times.
 */
class ClockStepTest {
  private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");
  private static final String BODY = "{\"amount\":1000,\"currency\":\"JPY\"}";
  private static final Duration SIX_HOURS = Duration.ofHours(6);
  private static final Duration RETENTION = Dialects.ietf().keyRetention();

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final List<IntentEvent> seen = new CopyOnWriteArrayList<>();
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private final List<IdempotentClient> clients = new ArrayList<>();

  @AfterEach
  void closeClients() {
    clients.forEach(IdempotentClient::close);
  }

  private static RetryPolicy policy(int maxAttempts) {
    return RetryPolicy.builder().maxAttempts(maxAttempts).baseDelay(Duration.ofMillis(100))
        .maxDelay(Duration.ofSeconds(10)).deadline(Duration.ofMinutes(1))
        .attemptTimeout(Duration.ofMillis(500)).build();
  }

  private IdempotentClient client(int maxAttempts, Sleeper sleeper) {
    IdempotentClient client = IdempotentClient.builder().store(store).clock(clock)
        .sleeper(sleeper).listener(seen::add).retryPolicy(policy(maxAttempts)).build();
    clients.add(client);
    return client;
  }

  private IntentSpec spec() {
    return IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post(server.url("/payments").toString()).jsonBody(BODY).build();
  }

  private static MockResponse unavailable(int retryAfterSeconds) {
    return new MockResponse.Builder().code(503)
        .addHeader("Retry-After", Integer.toString(retryAfterSeconds)).build();
  }

  private static MockResponse created() {
    return new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}").build();
  }

  private List<String> keysSeen() throws InterruptedException {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < server.getRequestCount(); i++) {
      RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
      keys.add(request.getHeaders().get("Idempotency-Key"));
    }
    return keys;
  }

  /** Advances the clock by every wait, and steps its wall reading by {@code step} once. */
  private Sleeper steppingOnce(Duration step) {
    AtomicBoolean stepped = new AtomicBoolean();
    return d -> {
      sleeper.sleep(d);
      if (stepped.compareAndSet(false, true)) {
        clock.stepWall(step);
      }
    };
  }

  @Test
  void a_resumed_wait_stored_six_hours_ahead_of_the_wall_clock_is_cut_to_the_policys_longest()
      throws Exception {
    server.enqueue(unavailable(5));
    IntentSpec spec = spec();
    IntentOutcome first = client(1, sleeper).execute(spec);
    assertThat(((IntentOutcome.Pending) first).reason()).isEqualTo(PendingReason.ATTEMPTS_EXHAUSTED);
    assertThat(store.get(spec.id()).orElseThrow().nextAttemptAt()).isEqualTo(T0.plusSeconds(5));

    clock.stepWall(SIX_HOURS.negated());
    server.enqueue(created());
    IntentOutcome resumed = client(3, sleeper).resumePending().get(0).get(5, TimeUnit.SECONDS);

    assertThat(resumed).as("attempted, not parked DEADLINE_EXCEEDED until the clock catches up")
        .isInstanceOf(IntentOutcome.Completed.class);
    assertThat(keysSeen()).hasSize(2).containsOnly("\"" + spec.key() + "\"");
    RetryPolicy policy = policy(3);
    assertThat(sleeper.sleeps()).singleElement().satisfies(wait -> assertThat(wait)
        .isLessThanOrEqualTo(policy.maxDelay().plus(policy.attemptTimeout())));
    assertThat(seen).filteredOn(IntentEvent.RetryScheduled.class::isInstance)
        .map(e -> ((IntentEvent.RetryScheduled) e).cause())
        .anySatisfy(cause -> assertThat(cause).contains("wall clock stepped back"));
    assertThat(store.get(spec.id()).orElseThrow().attempts()).isEqualTo(2);
  }

  @Test
  void a_stepped_back_clock_never_makes_a_record_past_the_key_retention_look_young_enough_to_resend()
      throws Exception {
    IntentSpec spec = spec();
    // Its last drive parked it a minute after the server forgot the key.
    Instant lastWrite = T0.plus(RETENTION).plusSeconds(60);
    store.create(IntentRecord.builder().id(spec.id()).method("POST").url(spec.url())
        .body(spec.body(), spec.mediaType()).fingerprint(spec.fingerprint())
        .keyWireForm("Idempotency-Key", Dialects.ietf().formatKey(spec.key()))
        .state(IntentState.PENDING).attempts(2).maybeDelivered(true)
        .createdAt(T0).updatedAt(lastWrite).expiresAt(T0.plus(RETENTION)).build());
    clock.advance(Duration.between(T0, lastWrite).minus(SIX_HOURS));
    server.enqueue(created());

    IntentOutcome resumed = client(3, sleeper).resumePending().get(0).get(5, TimeUnit.SECONDS);

    assertThat(resumed).isInstanceOf(IntentOutcome.NeedsReconciliation.class);
    assertThat(server.getRequestCount()).as("never a resend the server may take as new").isZero();
  }

  @Test
  void a_write_after_a_step_back_never_moves_the_update_time_back() throws Exception {
    IntentSpec spec = spec();
    Instant lastWrite = T0.plus(Duration.ofMinutes(30));
    store.create(IntentRecord.builder().id(spec.id()).method("POST").url(spec.url())
        .body(spec.body(), spec.mediaType()).fingerprint(spec.fingerprint())
        .keyWireForm("Idempotency-Key", Dialects.ietf().formatKey(spec.key()))
        .state(IntentState.PENDING).attempts(1).maybeDelivered(true)
        .createdAt(T0.minusSeconds(60)).updatedAt(lastWrite)
        .expiresAt(T0.minusSeconds(60).plus(RETENTION)).build());
    server.enqueue(unavailable(5));

    client(1, sleeper).resumePending().get(0).get(5, TimeUnit.SECONDS);

    IntentRecord parked = store.get(spec.id()).orElseThrow();
    assertThat(parked.state()).isEqualTo(IntentState.PENDING);
    assertThat(parked.updatedAt()).as("the proof of the step survives the next restart")
        .isAfterOrEqualTo(lastWrite);
    assertThat(parked.nextAttemptAt()).as("due times stay on the wall clock")
        .isEqualTo(T0.plusSeconds(5));
  }

  @Test
  void a_wall_clock_stepped_forward_during_a_drive_does_not_cut_its_deadline() throws Exception {
    server.enqueue(unavailable(5));
    server.enqueue(unavailable(5));
    server.enqueue(created());
    IntentSpec spec = spec();

    // Ten minutes: past the drive's 1-minute deadline on the wall clock, within the key retention.
    IntentOutcome outcome = client(5, steppingOnce(Duration.ofMinutes(10))).execute(spec);

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(keysSeen()).hasSize(3).containsOnly("\"" + spec.key() + "\"");
  }

  @Test
  void a_wall_clock_stepped_forward_past_the_key_retention_during_a_drive_stops_resending()
      throws Exception {
    server.enqueue(unavailable(5));
    server.enqueue(unavailable(5));
    server.enqueue(created());
    IntentSpec spec = spec();

    // The conservative side of a forward step: the record looks past the server's retention, so
    // the maybe-delivered intent goes to reconciliation rather than a resend.
    IntentOutcome outcome = client(5, steppingOnce(SIX_HOURS)).execute(spec);

    assertThat(outcome).isInstanceOf(IntentOutcome.NeedsReconciliation.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void a_wall_clock_stepped_back_during_a_drive_does_not_stretch_its_deadline() throws Exception {
    for (int i = 0; i < 40; i++) {
      server.enqueue(unavailable(10));
    }
    IntentSpec spec = spec();

    IntentOutcome outcome = client(40, steppingOnce(SIX_HOURS.negated())).execute(spec);

    assertThat(((IntentOutcome.Pending) outcome).reason())
        .isEqualTo(PendingReason.DEADLINE_EXCEEDED);
    assertThat(server.getRequestCount()).as("one attempt per 10 s wait within the 1 min deadline")
        .isLessThanOrEqualTo(6);
  }

  @Test
  void an_intercepted_call_reissued_after_the_clock_stepped_back_is_sent_not_parked()
      throws Exception {
    server.enqueue(unavailable(5));
    server.enqueue(created());
    IdempotencyInterceptor interceptor = IdempotencyInterceptor.builder().store(store)
        .clock(clock).sleeper(sleeper).listener(IntentListener.NONE).retryPolicy(policy(1))
        .build();
    OkHttpClient app = interceptor.installOn(new OkHttpClient.Builder()).build();
    Request payment = new Request.Builder().url(server.url("/payments"))
        .tag(IntentTag.class, IntentTag.builder().operation("create-payment").scope("tenant-42")
            .businessId("order-7").build())
        .post(RequestBody.create(BODY, MediaType.get("application/json"))).build();
    try (Response first = app.newCall(payment).execute()) {
      assertThat(first.code()).isEqualTo(503);
    } catch (IntentPendingException pending) {
      assertThat(pending.reason()).isEqualTo(PendingReason.ATTEMPTS_EXHAUSTED);
    }

    clock.stepWall(SIX_HOURS.negated());
    try (Response again = app.newCall(payment).execute()) {
      assertThat(again.code()).isEqualTo(201);
    }

    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(store.listUnfinished()).isEmpty();
  }
}
