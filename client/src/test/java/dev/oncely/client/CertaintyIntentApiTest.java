package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.EventCounter;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.testing.AsyncCalls;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The certainty rules that concern the intent API's own machinery (resume, header provider, key
 * wire form, futures, store failures) and the interceptor's async safety: the rules that {@link
 * CertaintyRulesTest} cannot run through both entry points.
 */
class CertaintyIntentApiTest {
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

  private IdempotentClient.Builder builder() {
    return IdempotentClient.builder().store(store).clock(clock).sleeper(sleeper)
        .listener(e -> {
          events.onEvent(e);
          seen.add(e);
        })
        .retryPolicy(RetryPolicy.builder().maxAttempts(4).baseDelay(Duration.ofMillis(100))
            .maxDelay(Duration.ofSeconds(5)).deadline(Duration.ofMinutes(1))
            .attemptTimeout(Duration.ofMillis(1500)).build());
  }

  private IdempotentClient client(IdempotentClient.Builder builder) {
    IdempotentClient client = builder.build();
    clients.add(client);
    return client;
  }

  private IntentSpec spec() {
    return IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post(server.url("/payments").toString()).jsonBody(BODY).build();
  }

  private static MockResponse created() {
    return new MockResponse.Builder().code(201).body("{\"id\":\"p\"}").build();
  }

  /** A record exactly as a crash during the first attempt leaves it: created IN_FLIGHT, 0 attempts. */
  private IntentRecord crashedInFirstSend(IntentSpec spec) {
    IntentRecord record = IntentRecord.builder().id(spec.id()).method("POST").url(spec.url())
        .body(spec.body(), spec.mediaType()).fingerprint(spec.fingerprint())
        .keyWireForm("Idempotency-Key", Dialects.ietf().formatKey(spec.key()))
        .state(IntentState.IN_FLIGHT).createdAt(T0).updatedAt(T0)
        .expiresAt(T0.plus(Dialects.ietf().keyRetention())).build();
    store.create(record);
    return record;
  }

  // A resume that gives up before any attempt keeps the crashed attempt's maybe-delivered mark:
  // with 0 attempts and no mark the record would look never sent and skip the key-retention guard.
  @Test
  void a_crash_in_the_first_send_keeps_the_intent_maybe_delivered_through_an_offline_resume()
      throws Exception {
    IntentSpec spec = spec();
    crashedInFirstSend(spec);
    NetworkGate offline = new NetworkGate() {
      @Override
      public boolean isOpen() {
        return false;
      }

      @Override
      public void whenOpen(Runnable action) {}
    };
    IdempotentClient first = client(builder().networkGate(offline).retryPolicy(RetryPolicy
        .builder().deadline(Duration.ofMillis(50)).build()));

    IntentOutcome offlineResume = first.resumePending().get(0).get(5, TimeUnit.SECONDS);

    assertThat(offlineResume).isInstanceOf(IntentOutcome.Pending.class);
    assertThat(((IntentOutcome.Pending) offlineResume).reason()).isEqualTo(PendingReason.OFFLINE);
    IntentRecord parked = store.get(spec.id()).orElseThrow();
    assertThat(parked.state()).isEqualTo(IntentState.PENDING);
    assertThat(parked.attempts()).isZero();
    assertThat(parked.maybeDelivered()).as("sticky: the crashed attempt may have landed").isTrue();

    clock.advance(Dialects.ietf().keyRetention().plusMinutes(1));
    server.enqueue(created());
    IntentOutcome later = client(builder()).resumePending().get(0).get(5, TimeUnit.SECONDS);

    assertThat(later).isInstanceOf(IntentOutcome.NeedsReconciliation.class);
    assertThat(server.getRequestCount()).as("never a blind resend past the key retention")
        .isZero();
  }

  // Neither a HeaderProvider nor a spec header may replace the idempotency key header.
  @Test
  void a_header_provider_cannot_replace_the_key_header() throws Exception {
    server.enqueue(created());
    IntentSpec spec = spec();
    IdempotentClient client = client(builder().headerProvider(
        (id, url) -> Map.of("Idempotency-Key", "\"forged\"", "Authorization", "Bearer t")));

    assertThat(client.execute(spec)).isInstanceOf(IntentOutcome.Completed.class);

    RecordedRequest sent = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(sent.getHeaders().values("Idempotency-Key"))
        .containsExactly("\"" + spec.key() + "\"");
    assertThat(sent.getHeaders().get("Authorization")).isEqualTo("Bearer t");
    assertThat(events.count(IntentEvent.KeyHeaderIgnored.class)).isEqualTo(1);
  }

  @Test
  void a_spec_header_named_like_the_key_header_is_refused_before_anything_is_stored() {
    IntentSpec spec = spec().toBuilder().header("idempotency-key", "\"mine\"").build();
    IdempotentClient client = client(builder());

    assertThatThrownBy(() -> client.execute(spec)).isInstanceOf(InvalidIntentException.class)
        .hasMessageContaining("key header");
    assertThatThrownBy(() -> client.submit(spec)).isInstanceOf(InvalidIntentException.class);
    assertThat(store.get(spec.id())).isEmpty();
  }

  // A record pins the wire form of its key.
  @Test
  void a_resume_by_a_client_with_another_dialect_sends_the_key_exactly_as_first_sent()
      throws Exception {
    IntentSpec spec = spec();
    crashedInFirstSend(spec);
    server.enqueue(created());

    IntentOutcome outcome = client(builder().dialect(Dialects.paypal())).resumePending().get(0)
        .get(5, TimeUnit.SECONDS);

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    RecordedRequest sent = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(sent.getHeaders().get("Idempotency-Key")).isEqualTo("\"" + spec.key() + "\"");
    assertThat(sent.getHeaders().get("PayPal-Request-Id")).isNull();
  }

  // close() completes the futures of queued drives; one caller cancelling its future of submit()
  // does not cancel the drive the other callers share.
  @Test
  void close_completes_every_queued_future_with_a_typed_pending() throws Exception {
    ConcurrentLinkedQueue<Runnable> neverRun = new ConcurrentLinkedQueue<>();
    IdempotentClient client = client(builder().executor(neverRun::add));

    CompletableFuture<IntentOutcome> queued = client.submit(spec());
    assertThat(queued).isNotDone();
    client.close();

    IntentOutcome outcome = queued.get(5, TimeUnit.SECONDS);
    assertThat(outcome).isInstanceOf(IntentOutcome.Pending.class);
    assertThat(((IntentOutcome.Pending) outcome).reason()).isEqualTo(PendingReason.INTERRUPTED);
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void one_caller_cancelling_its_future_does_not_stop_the_shared_drive() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    server.setDispatcher(new mockwebserver3.Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        release.await(5, TimeUnit.SECONDS);
        return created();
      }
    });
    IdempotentClient client = client(builder().retryPolicy(RetryPolicy.builder()
        .attemptTimeout(Duration.ofSeconds(10)).build()));
    IntentSpec spec = spec();

    CompletableFuture<IntentOutcome> first = client.submit(spec);
    CompletableFuture<IntentOutcome> second = client.submit(spec);
    first.cancel(true);
    release.countDown();

    assertThat(second.get(10, TimeUnit.SECONDS)).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  // A create that fails after its write may have left the record durable: never a definite failure.
  @Test
  void a_create_that_fails_after_the_write_is_pending_and_a_resume_completes_it_once()
      throws Exception {
    IntentStore failsAfterWrite = new ForwardingIntentStore(store) {
      @Override
      public void create(IntentRecord record) {
        super.create(record);
        throw new StoreException("the disk reported an error after the write");
      }
    };
    IdempotentClient client = client(builder().store(failsAfterWrite));
    IntentSpec spec = spec();

    IntentOutcome outcome = client.execute(spec);

    assertThat(outcome).isInstanceOf(IntentOutcome.Pending.class);
    assertThat(((IntentOutcome.Pending) outcome).reason()).isEqualTo(PendingReason.STORE_FAILED);
    assertThat(((IntentOutcome.Pending) outcome).detail()).contains("same spec");
    assertThat(server.getRequestCount()).isZero();

    server.enqueue(created());
    IntentOutcome resumed = client(builder()).resumePending().get(0).get(5, TimeUnit.SECONDS);
    assertThat(resumed).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  // submit() must not touch the disk on the calling (main) thread.
  @Test
  void submit_touches_the_store_only_on_driver_threads() throws Exception {
    Set<String> storeThreads = java.util.concurrent.ConcurrentHashMap.newKeySet();
    IntentStore watched = new ForwardingIntentStore(store) {
      @Override
      public void create(IntentRecord record) {
        storeThreads.add(Thread.currentThread().getName());
        super.create(record);
      }

      @Override
      public boolean compareAndSet(IntentRecord expected, IntentRecord next) {
        storeThreads.add(Thread.currentThread().getName());
        return super.compareAndSet(expected, next);
      }

      @Override
      public Optional<IntentRecord> get(IntentId id) {
        storeThreads.add(Thread.currentThread().getName());
        return super.get(id);
      }
    };
    server.enqueue(created());
    IdempotentClient client = client(builder().store(watched));

    assertThat(client.submit(spec()).get(5, TimeUnit.SECONDS))
        .isInstanceOf(IntentOutcome.Completed.class);
    assertThat(storeThreads).isNotEmpty().allMatch(name -> name.startsWith("oncely-driver-"));
  }

  @Test
  void a_status_url_on_a_listed_origin_gets_credentials_and_is_told_it_is_cross_origin()
      throws Exception {
    try (MockWebServer other = new MockWebServer()) {
      other.start();
      server.enqueue(new MockResponse.Builder().code(202)
          .addHeader("Location", other.url("/status/1").toString()).build());
      other.enqueue(created());
      AtomicReference<HeaderProvider.Target> asked = new AtomicReference<>();
      IdempotentClient client = client(builder()
          .credentialOrigins("http://" + other.getHostName() + ":" + other.getPort())
          .headerProvider(new HeaderProvider() {
            @Override
            public Map<String, String> headersFor(IntentId id, String url) {
              return Map.of("Authorization", "Bearer t");
            }

            @Override
            public Map<String, String> headersFor(IntentId id, Target target) {
              if (target.crossOrigin()) {
                asked.set(target);
              }
              return headersFor(id, target.url());
            }
          }));

      assertThat(client.execute(spec())).isInstanceOf(IntentOutcome.Completed.class);

      assertThat(other.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization"))
          .isEqualTo("Bearer t");
      assertThat(asked.get()).isNotNull();
    }
  }

  // Only IOExceptions leave the interceptor, so enqueue() cannot crash an app.
  @Test
  void an_interceptor_refusal_reaches_the_async_callback_and_no_thread_dies() throws Exception {
    server.enqueue(created());
    List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
    try {
      OkHttpClient http = IdempotencyInterceptor.builder().store(store).maxBodyBytes(64).build()
          .installOn(new OkHttpClient.Builder()).build();
      Request first = new Request.Builder().url(server.url("/orders"))
          .header("Idempotency-Key", "\"k-async\"")
          .post(RequestBody.create(BODY, MediaType.get("application/json"))).build();
      http.newCall(first).execute().close();
      Request changed = first.newBuilder()
          .post(RequestBody.create("{\"amount\":5}", MediaType.get("application/json"))).build();
      Request tooLarge = first.newBuilder().header("Idempotency-Key", "\"k-big\"")
          .post(RequestBody.create("x".repeat(1000), MediaType.get("text/plain"))).build();

      for (Request request : List.of(changed, tooLarge)) {
        assertThat(AsyncCalls.failureOf(http.newCall(request)).get(5, TimeUnit.SECONDS))
            .isInstanceOf(IntentIOException.class);
      }
      http.dispatcher().executorService().shutdown();
      assertThat(http.dispatcher().executorService().awaitTermination(5, TimeUnit.SECONDS))
          .isTrue();
      assertThat(uncaught).isEmpty();
      assertThat(server.getRequestCount()).isEqualTo(1);
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(previous);
    }
  }

  @Test
  void a_202_naming_its_status_url_in_the_body_is_polled_and_a_processing_document_keeps_polling()
      throws Exception {
    server.enqueue(new MockResponse.Builder().code(202).body("{\"id\":\"p_42\"}").build());
    server.enqueue(new MockResponse.Builder().code(200).body("{\"status\":\"processing\"}")
        .build());
    server.enqueue(new MockResponse.Builder().code(200).body("{\"status\":\"paid\"}").build());
    dev.oncely.client.dialect.Dialect dialect = Dialects.custom("body-status")
        .statusUrlResolver(dev.oncely.client.dialect.StatusUrlResolver.jsonPointer("/id",
            "/v1/payments/{}"))
        .statusInterpreter(answer -> new String(answer.body(), java.nio.charset.StandardCharsets
            .UTF_8).contains("processing")
            ? dev.oncely.client.dialect.StatusInterpreter.PollState.PROCESSING
            : dev.oncely.client.dialect.StatusInterpreter.PollState.DONE)
        .build();

    IntentOutcome outcome = client(builder().dialect(dialect)).execute(spec());

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(new String(((IntentOutcome.Completed) outcome).response().body(),
        java.nio.charset.StandardCharsets.UTF_8)).contains("paid");
    server.takeRequest(5, TimeUnit.SECONDS);
    RecordedRequest poll = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(poll.getMethod()).isEqualTo("GET");
    assertThat(poll.getUrl().encodedPath()).isEqualTo("/v1/payments/p_42");
    assertThat(server.getRequestCount()).isEqualTo(3);
  }
}
