package dev.oncely.server.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentTag;
import dev.oncely.client.KeyStrategy;
import dev.oncely.client.PendingReason;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.ReceiptEvent;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.ServerAnswer;
import dev.oncely.server.ServerDialect;
import dev.oncely.server.servlet.FaultProxy.Fault;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The project's own client, both entry points, through the filter in Tomcat: each client dialect
 * against the server dialect of the same name. A payment runs once; an answer lost after the
 * effect (a {@link FaultProxy} between them drops, resets or stalls it) is resent under the same
 * key and answered with the stored answer; a repeat that finds the first running waits for its
 * answer; another payload under a used key is a key conflict; a pending payment is polled at its
 * status URL and completes once the server settles it.
 */
class ClientThroughFilterTest {
  private static final String BODY = "{\"amount\":1200,\"currency\":\"EUR\",\"customer\":\"c-1\"}";
  private static final String OTHER_BODY =
      "{\"amount\":1300,\"currency\":\"EUR\",\"customer\":\"c-1\"}";
  private static final String FIRST_ANSWER = "{\"id\":\"pay_1\",\"status\":\"succeeded\",\"bytes\":"
      + BODY.length() + "}";
  private static final EndpointPolicy PAYMENTS = EndpointPolicy.builder("payments.create").build();
  private static final RetryPolicy PATIENT = RetryPolicy.builder()
      .maxAttempts(6)
      .baseDelay(Duration.ofMillis(10))
      .maxDelay(Duration.ofMillis(200))
      .attemptTimeout(Duration.ofSeconds(2))
      .deadline(Duration.ofSeconds(30))
      .build();

  /** How the test reaches the server: the intent API or the interceptor in a plain client. */
  enum Entry { INTENT_API, INTERCEPTOR }

  @TempDir
  Path dir;

  private final PaymentLedger ledger = new PaymentLedger();
  private final PaymentsServlet servlet = new PaymentsServlet(ledger);
  private final Arrivals arrivals = new Arrivals();
  private final List<ReceiptEvent.Kind> events = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> open = new ArrayList<>();
  private volatile Consumer<ReceiptEvent> onEvent = e -> { };
  private IdempotentEndpoints endpoints;
  private TomcatServer server;

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  static Stream<Arguments> entriesDialectsFaults() {
    List<Arguments> all = new ArrayList<>();
    for (Entry entry : Entry.values()) {
      for (ServerDialect dialect : ServerDialect.values()) {
        for (Fault fault : Fault.values()) {
          all.add(Arguments.of(entry, dialect, fault));
        }
      }
    }
    return all.stream();
  }

  static Stream<Arguments> entriesAndDialects() {
    return entriesDialectsFaults().filter(a -> a.get()[2] == Fault.NONE)
        .map(a -> Arguments.of(a.get()[0], a.get()[1]));
  }

  @ParameterizedTest(name = "{0}, {1}, {2}")
  @MethodSource("entriesDialectsFaults")
  void a_payment_runs_once_and_an_answer_lost_after_the_effect_is_replayed_under_the_same_key(
      Entry entry, ServerDialect dialect, Fault fault) throws Exception {
    start(dialect);
    FaultProxy proxy = new FaultProxy(server.port(), fault);
    open.add(proxy);

    Answer answer = pay(entry, dialect, proxy.url("/payments"), BODY);

    assertThat(ledger.effects()).as("business effects").isEqualTo(1);
    assertThat(answer.status()).isEqualTo(201);
    assertThat(answer.text()).isEqualTo(FIRST_ANSWER);
    assertThat(proxy.faultsInjected()).isEqualTo(fault == Fault.NONE ? 0 : 1);
    assertThat(events).filteredOn(e -> e == ReceiptEvent.Kind.RESERVED)
        .as("one key: reserved once").hasSize(1);
    if (fault == Fault.NONE) {
      assertThat(events).doesNotContain(ReceiptEvent.Kind.REPLAYED);
    } else {
      assertThat(arrivals.count("POST /payments")).isGreaterThanOrEqualTo(2);
      assertThat(events).contains(ReceiptEvent.Kind.REPLAYED);
      assertThat(answer.replayMarker()).isTrue();
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(ServerDialect.class)
  void a_second_sender_that_finds_the_first_running_waits_and_gets_its_answer(
      ServerDialect dialect) throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch toldToWait = new CountDownLatch(1);
    servlet.beforeAnswer(() -> {
      entered.countDown();
      toldToWait.await(20, TimeUnit.SECONDS);
    });
    onEvent = e -> {
      if (e.kind() == ReceiptEvent.Kind.IN_PROGRESS) {
        toldToWait.countDown();
      }
    };
    HttpUrl url = start(dialect);
    String key = "order-7-" + System.nanoTime();

    try (IdempotentClient first = intentClient(dialect);
        IdempotentClient second = intentClient(dialect)) {
      CompletableFuture<IntentOutcome> running = first.submit(spec(url, key, BODY));
      assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
      IntentOutcome waited = second.execute(spec(url, key, BODY));
      IntentOutcome ran = running.get(20, TimeUnit.SECONDS);

      assertThat(ran).isInstanceOf(IntentOutcome.Completed.class);
      assertThat(waited).isInstanceOf(IntentOutcome.Completed.class);
      assertThat(((IntentOutcome.Completed) waited).response().body())
          .isEqualTo(((IntentOutcome.Completed) ran).response().body());
    }
    assertThat(events).contains(ReceiptEvent.Kind.IN_PROGRESS, ReceiptEvent.Kind.REPLAYED);
    assertThat(ledger.effects()).isEqualTo(1);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(ServerDialect.class)
  void another_payload_under_a_used_key_is_a_key_conflict_never_a_second_payment(
      ServerDialect dialect) {
    HttpUrl url = start(dialect);
    String key = "order-8-" + System.nanoTime();

    IntentOutcome other;
    try (IdempotentClient first = intentClient(dialect);
        IdempotentClient second = intentClient(dialect)) {
      assertThat(first.execute(spec(url, key, BODY))).isInstanceOf(IntentOutcome.Completed.class);
      other = second.execute(spec(url, key, OTHER_BODY));
    }

    assertThat(other).isInstanceOf(IntentOutcome.KeyConflict.class);
    assertThat(((IntentOutcome.KeyConflict) other).response().status())
        .isEqualTo(dialect == ServerDialect.IETF ? 422 : 400);
    assertThat(ledger.effects()).isEqualTo(1);
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("entriesAndDialects")
  void a_pending_payment_is_polled_at_its_status_url_and_completes_once_settled(Entry entry,
      ServerDialect dialect) throws Exception {
    servlet.pendingCharges();
    HttpUrl url = start(dialect);
    RetryPolicy threeTries = PATIENT.toBuilder().maxAttempts(3).build();
    ServerAnswer settledAnswer = ServerAnswer.json(201,
        "{\"id\":\"pay_1\",\"status\":\"succeeded\"}").withHeader("Location", "/payments/pay_1");

    Answer whilePending;
    Answer done;
    if (entry == Entry.INTENT_API) {
      try (IdempotentClient client = IdempotentClient.builder().dialect(clientDialect(dialect))
          .retryPolicy(threeTries).build()) {
        IntentOutcome pending = client.execute(spec(url, "order-9-" + System.nanoTime(), BODY));
        assertThat(pending).isInstanceOfSatisfying(IntentOutcome.Pending.class,
            p -> assertThat(p.reason()).isEqualTo(PendingReason.STILL_PROCESSING));
        whilePending = Answer.of((IntentOutcome.Pending) pending);
        settle(settledAnswer);
        done = Answer.of(client.resume(pending.id()).get(20, TimeUnit.SECONDS));
      }
    } else {
      try (IdempotencyInterceptor interceptor = IdempotencyInterceptor.builder()
          .dialect(clientDialect(dialect)).retryPolicy(threeTries)
          .store(new InMemoryIntentStore()).build()) {
        OkHttpClient http = interceptor.installOn(new OkHttpClient.Builder()).build();
        Request tagged = new Request.Builder().url(url)
            .post(RequestBody.create(BODY, PlainClient.JSON))
            .tag(IntentTag.class, IntentTag.builder().operation("create-payment")
                .scope("tenant-1").businessId("order-9").build())
            .build();
        whilePending = call(http, tagged);
        settle(settledAnswer);
        done = call(http, tagged);
        shutdown(http);
      }
    }

    assertThat(whilePending.status()).isEqualTo(202);
    assertThat(arrivals.count("GET /oncely/receipts/payments.create/"))
        .as("polls of the status URL").isGreaterThanOrEqualTo(1);
    assertThat(done.status()).isEqualTo(201);
    assertThat(done.body()).isEqualTo(settledAnswer.body());
    assertThat(arrivals.count("POST /payments")).as("the payment was sent once").isEqualTo(1);
    assertThat(ledger.effects()).isEqualTo(1);
  }

  // --- helpers ---

  private HttpUrl start(ServerDialect dialect) {
    endpoints = IdempotentEndpoints.builder(
            ReceiptStore.on(MapDbIntentStore.open(dir.resolve("receipts.mapdb"))))
        .dialect(dialect)
        .listener(e -> {
          events.add(e.kind());
          onEvent.accept(e);
        })
        .build();
    open.add(endpoints.receipts());
    open.add(endpoints);
    server = TomcatServer.builder()
        .filter(arrivals)
        .filter(new IdempotencyFilter(endpoints,
            EndpointRoutes.builder().route("POST", "/payments", PAYMENTS).build()))
        .servlet(servlet)
        .start();
    open.add(0, server);
    return server.url("/payments");
  }

  private void settle(ServerAnswer answer) {
    assertThat(endpoints.settle(ledger.single().receipt(), answer, PAYMENTS)).isTrue();
  }

  private static Dialect clientDialect(ServerDialect dialect) {
    return dialect == ServerDialect.IETF ? Dialects.ietf() : Dialects.stripe();
  }

  private static IdempotentClient intentClient(ServerDialect dialect) {
    return IdempotentClient.builder().dialect(clientDialect(dialect)).retryPolicy(PATIENT).build();
  }

  private static IntentSpec spec(HttpUrl url, String key, String json) {
    return IntentSpec.builder().operation("create-payment").scope("tenant-1")
        .post(url.toString()).jsonBody(json).keyStrategy(KeyStrategy.existing(key)).build();
  }

  private static Answer pay(Entry entry, ServerDialect dialect, HttpUrl url, String json)
      throws IOException {
    if (entry == Entry.INTENT_API) {
      try (IdempotentClient client = intentClient(dialect)) {
        return Answer.of(client.execute(IntentSpec.builder().operation("create-payment")
            .scope("tenant-1").post(url.toString()).jsonBody(json).build()));
      }
    }
    try (IdempotencyInterceptor interceptor = IdempotencyInterceptor.builder()
        .dialect(clientDialect(dialect)).retryPolicy(PATIENT).build()) {
      OkHttpClient http = interceptor.installOn(new OkHttpClient.Builder()).build();
      try {
        return call(http, new Request.Builder().url(url)
            .post(RequestBody.create(json, PlainClient.JSON)).build());
      } finally {
        shutdown(http);
      }
    }
  }

  private static Answer call(OkHttpClient http, Request request) throws IOException {
    try (Response response = http.newCall(request).execute()) {
      return new Answer(response.code(), response.body().bytes(),
          "true".equals(response.header("Idempotent-Replayed")));
    }
  }

  private static void shutdown(OkHttpClient http) {
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }

  /**
   * What the app got: status, body, and whether the answer carried the server's replay marker.
   *
   * @param status the status
   * @param body the body bytes
   * @param replayMarker whether {@code Idempotent-Replayed: true} came with it
   */
  private record Answer(int status, byte[] body, boolean replayMarker) {
    static Answer of(IntentOutcome outcome) {
      assertThat(outcome).as(outcome.toString()).isInstanceOf(IntentOutcome.Completed.class);
      IntentOutcome.Completed done = (IntentOutcome.Completed) outcome;
      return new Answer(done.response().status(), done.response().body(),
          "true".equals(done.response().header("Idempotent-Replayed")));
    }

    static Answer of(IntentOutcome.Pending pending) {
      return new Answer(pending.lastResponse().status(), pending.lastResponse().body(), false);
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }
}
