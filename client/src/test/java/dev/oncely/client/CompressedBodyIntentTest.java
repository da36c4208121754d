package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.event.IntentListener;
import dev.oncely.client.testing.GzipRequestInterceptor;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.client.testing.Wiring;
import dev.oncely.payload.Fingerprints;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.ReceivedRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A body with a {@code Content-Encoding} is an intent like any other. The app compresses its JSON
 * with OkHttp's own recipe ({@link GzipRequestInterceptor}) before the SDK sees it: the intent is
 * fingerprinted by its decoded JSON, stored and resent as the exact gzip bytes with {@code
 * Content-Encoding: gzip} on every attempt (after a {@code 503}, after a dropped connection, after
 * a restart, by a re-issued call compressed at another level or not at all, by either entry
 * point's resume), and the server counts one effect. A body in a coding the SDK cannot decode is
 * an intent of its exact bytes; a body that is not what its header declares, or that decodes past
 * the body limit, is refused before anything is stored or sent. A "restart" is a new interceptor
 * and a new OkHttp client on the same store.
 */
class CompressedBodyIntentTest {
  private static final Instant T0 = Instant.parse("2026-12-03T09:00:00Z");
  private static final MediaType JSON = MediaType.get("application/json");
  private static final String BODY = "{\"order\":\"order-7\",\"amount\":1000,\"currency\":\"JPY\"}";
  /** The h2 error code of a stream reset by a server that failed while answering. */
  private static final int INTERNAL_ERROR = 2;
  private static final long LIMIT = 16 * 1024;

  private final MockWebServer server = new MockWebServer();
  private final ManualClock clock = new ManualClock(T0);
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private final IntentTag tag = IntentTag.builder().operation("create-payment")
      .scope("tenant-42").businessId("order-7").build();
  private IdempotentServer kit;

  @AfterEach
  void stop() {
    server.close();
  }

  /**
   * Starts the testing kit's server (exact-bytes fingerprints) with {@code faults}; with {@code
   * loseFirstAnswer}, the first request takes its effect and its answer is lost: the connection
   * closes (HTTP/1.1) or the stream is reset (h2).
   */
  private void start(Protocol protocol, boolean loseFirstAnswer, FaultScript faults,
      UnaryOperator<IdempotentServer.Builder> more) throws IOException {
    kit = more.apply(IdempotentServer.builder().faults(faults)).build();
    SocketEffect answerLost = protocol == Protocol.H2_PRIOR_KNOWLEDGE
        ? new SocketEffect.CloseStream(INTERNAL_ERROR)
        : new SocketEffect.CloseSocket(true, true, true);
    AtomicBoolean lose = new AtomicBoolean(loseFirstAnswer);
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        MockResponse answer = kit.dispatch(request);
        return lose.getAndSet(false)
            ? answer.newBuilder().onResponseStart(answerLost).build() : answer;
      }

      @Override
      public MockResponse peek() {
        // MockWebServer takes an h2 exchange's socket effects from peek().
        return lose.get() ? new MockResponse.Builder().onResponseStart(answerLost).build()
            : super.peek();
      }
    });
    server.setProtocols(List.of(protocol));
    server.start();
  }

  private void start(Protocol protocol, boolean loseFirstAnswer) throws IOException {
    start(protocol, loseFirstAnswer, FaultScript.none(), b -> b);
  }

  private IdempotencyInterceptor interceptor(int attempts) {
    return IdempotencyInterceptor.builder().store(store).clock(clock)
        .sleeper(new RecordingSleeper(clock)).listener(IntentListener.NONE).maxBodyBytes(LIMIT)
        .retryPolicy(RetryPolicy.builder().maxAttempts(attempts).baseDelay(Duration.ofMillis(10))
            .attemptTimeout(Duration.ofSeconds(5)).deadline(Duration.ofMinutes(5)).build())
        .build();
  }

  /**
   * The app's client: its credentials, then {@code compression} (OkHttp's gzip recipe, or none),
   * then the SDK wired as {@code wiring} says.
   */
  private static OkHttpClient app(IdempotencyInterceptor interceptor, Protocol protocol,
      Wiring wiring, Interceptor compression) {
    OkHttpClient.Builder app = new OkHttpClient.Builder().protocols(List.of(protocol))
        .addInterceptor(chain -> chain.proceed(chain.request().newBuilder()
            .header("Authorization", "Bearer app-token").build()));
    if (compression != null) {
      app.addInterceptor(compression);
    }
    return wiring.wire(interceptor, app).build();
  }

  private static OkHttpClient app(IdempotencyInterceptor interceptor, Interceptor compression) {
    return app(interceptor, Protocol.HTTP_1_1, Wiring.INSTALL_ON, compression);
  }

  private Request payment(String json) {
    return payment(json, tag);
  }

  private Request payment(String json, IntentTag intentTag) {
    return new Request.Builder().url(server.url("/payments")).tag(IntentTag.class, intentTag)
        .post(RequestBody.create(json, JSON)).build();
  }

  private IntentRecord record() {
    return store.findByBusinessId("tenant-42", "create-payment", "order-7").orElseThrow();
  }

  private List<ReceivedRequest> posts() {
    return kit.requests().all().stream().filter(r -> r.method().equals("POST")).toList();
  }

  private static byte[] gzip(String text, int level) {
    return GzipRequestInterceptor.gzip(text.getBytes(StandardCharsets.UTF_8), level);
  }

  private static String gunzip(byte[] bytes) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String jsonFingerprint(String json) {
    return Fingerprints.ofPayload(json.getBytes(StandardCharsets.UTF_8), "application/json",
        Set.of());
  }

  /** Every request the server saw is the first one's coding, bytes and key. */
  private static void allSentAsTheFirst(List<ReceivedRequest> sent, byte[] bytes)
      throws IOException {
    assertThat(sent).extracting(r -> r.header("Content-Encoding")).containsOnly("gzip");
    assertThat(sent).extracting(ReceivedRequest::body)
        .allSatisfy(body -> assertThat(body).isEqualTo(bytes));
    assertThat(sent).extracting(r -> r.header(IdempotentServer.DEFAULT_KEY_HEADER))
        .doesNotContainNull().containsOnly(sent.get(0).header(IdempotentServer.DEFAULT_KEY_HEADER));
    assertThat(gunzip(bytes)).isEqualTo(BODY);
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("dev.oncely.client.testing.Wiring#withProtocols")
  void a_gzipped_json_post_is_resent_after_a_503_with_its_content_encoding_and_bytes(
      Protocol protocol, Wiring wiring) throws Exception {
    start(protocol, false, FaultScript.builder().onRequest(1, Fault.handlerError(503)).build(),
        b -> b);

    try (Response response = app(interceptor(3), protocol, wiring,
        new GzipRequestInterceptor()).newCall(payment(BODY)).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }

    List<ReceivedRequest> sent = posts();
    assertThat(sent).hasSize(2);
    allSentAsTheFirst(sent, sent.get(0).body());
    IntentRecord record = record();
    assertThat(record.state()).isEqualTo(IntentState.COMPLETED);
    assertThat(record.fingerprint()).as("the fingerprint of the decoded JSON")
        .isEqualTo(jsonFingerprint(BODY));
    assertThat(record.hasRequestBytes(sent.get(0).body()))
        .as("the finished record's digest is of the gzip bytes sent").isTrue();
    assertThat(record.headers()).containsEntry("Content-Encoding", List.of("gzip"))
        .doesNotContainKey("Authorization");
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("dev.oncely.client.testing.Wiring#withProtocols")
  void a_gzipped_json_post_whose_answer_was_lost_is_replayed_with_the_same_bytes(
      Protocol protocol, Wiring wiring) throws Exception {
    start(protocol, true);

    try (Response response = app(interceptor(3), protocol, wiring,
        new GzipRequestInterceptor()).newCall(payment(BODY)).execute()) {
      assertThat(response.code()).isEqualTo(201);
      assertThat(response.header(IdempotentServer.REPLAYED_HEADER)).isEqualTo("true");
    }

    List<ReceivedRequest> sent = posts();
    assertThat(sent).hasSize(2);
    allSentAsTheFirst(sent, sent.get(0).body());
    assertThat(kit.ledger().size()).isEqualTo(1);
    assertThat(record().state()).isEqualTo(IntentState.COMPLETED);
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("dev.oncely.client.testing.Wiring#withProtocols")
  void a_gzipped_intent_reissued_after_a_restart_is_the_same_intent(Protocol protocol,
      Wiring wiring) throws Exception {
    start(protocol, true);
    assertThatThrownBy(() -> app(interceptor(1), protocol, wiring, new GzipRequestInterceptor())
        .newCall(payment(BODY)).execute())
        .isInstanceOf(IntentIOException.class)
        .hasCauseInstanceOf(IntentPendingException.class);
    IntentRecord pending = record();
    assertThat(pending.state()).isEqualTo(IntentState.PENDING);

    try (Response response = app(interceptor(1), protocol, wiring,
        new GzipRequestInterceptor()).newCall(payment(BODY)).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }

    List<ReceivedRequest> sent = posts();
    assertThat(sent).hasSize(2);
    allSentAsTheFirst(sent, pending.body());
    assertThat(sent.get(1).header(IdempotentServer.DEFAULT_KEY_HEADER))
        .isEqualTo("\"" + pending.id().key() + "\"");
    assertThat(kit.ledger().countOf(pending.id().key())).isEqualTo(1);
    assertThat(kit.ledger().size()).isEqualTo(1);
    assertThat(store.get(pending.id()).orElseThrow().state()).isEqualTo(IntentState.COMPLETED);
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("dev.oncely.client.testing.Wiring#withProtocols")
  void a_gzipped_intent_resumed_after_a_restart_keeps_its_coding_and_bytes(Protocol protocol,
      Wiring wiring) throws Exception {
    start(protocol, true);
    assertThatThrownBy(() -> app(interceptor(1), protocol, wiring, new GzipRequestInterceptor())
        .newCall(payment(BODY)).execute())
        .isInstanceOf(IntentIOException.class);
    IntentRecord pending = record();

    IdempotencyInterceptor restarted = interceptor(1);
    IntentOutcome outcome = restarted.resumePending(app(restarted, protocol, wiring,
        new GzipRequestInterceptor()), o -> { }).get(0).get(10, TimeUnit.SECONDS);

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    List<ReceivedRequest> sent = posts();
    assertThat(sent).hasSize(2);
    allSentAsTheFirst(sent, pending.body());
    assertThat(sent.get(1).headerValues("Content-Encoding")).as("declared once, never twice")
        .containsExactly("gzip");
    assertThat(sent.get(1).header("Authorization")).isEqualTo("Bearer app-token");
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void the_same_json_gzipped_at_another_level_joins_the_intent_and_is_resent_as_stored()
      throws Exception {
    start(Protocol.HTTP_1_1, true);
    // A body this small deflates the same at levels 1 to 9; level 0 stores it uncompressed.
    assertThat(gzip(BODY, Deflater.BEST_SPEED)).isNotEqualTo(gzip(BODY,
        Deflater.NO_COMPRESSION));
    assertThatThrownBy(() -> app(interceptor(1),
        new GzipRequestInterceptor(Deflater.BEST_SPEED)).newCall(payment(BODY)).execute())
        .isInstanceOf(IntentIOException.class);

    try (Response response = app(interceptor(1),
        new GzipRequestInterceptor(Deflater.NO_COMPRESSION)).newCall(payment(BODY)).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }

    List<ReceivedRequest> sent = posts();
    assertThat(sent).hasSize(2);
    allSentAsTheFirst(sent, gzip(BODY, Deflater.BEST_SPEED));
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void a_reissue_without_compression_joins_the_intent_and_is_resent_with_the_stored_coding()
      throws Exception {
    start(Protocol.HTTP_1_1, true);
    assertThatThrownBy(() -> app(interceptor(1), new GzipRequestInterceptor())
        .newCall(payment(BODY)).execute())
        .isInstanceOf(IntentIOException.class);

    try (Response response = app(interceptor(1), null).newCall(payment(BODY)).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }

    List<ReceivedRequest> sent = posts();
    assertThat(sent).hasSize(2);
    allSentAsTheFirst(sent, sent.get(0).body());
    assertThat(record().hasRequestBytes(sent.get(0).body()))
        .as("the finished record's digest is of the gzip bytes sent first").isTrue();
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void a_changed_json_under_the_same_business_id_gzipped_is_refused_before_any_io()
      throws Exception {
    start(Protocol.HTTP_1_1, false);
    app(interceptor(1), new GzipRequestInterceptor()).newCall(payment(BODY)).execute().close();
    String changed = BODY.replace("1000", "999");

    assertThatThrownBy(() -> app(interceptor(1), new GzipRequestInterceptor())
        .newCall(payment(changed)).execute())
        .isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(PayloadMismatchException.class);
    assertThat(kit.requests().size()).isEqualTo(1);

    try (Response repeat = app(interceptor(1), new GzipRequestInterceptor())
        .newCall(payment(BODY)).execute()) {
      assertThat(repeat.header(IdempotencyInterceptor.STORED_RESPONSE_HEADER)).isEqualTo("true");
    }
    assertThat(kit.requests().size()).isEqualTo(1);
  }

  @Test
  void volatile_fields_of_a_gzipped_json_body_may_change_in_a_reissue_of_the_same_intent()
      throws Exception {
    start(Protocol.HTTP_1_1, true);
    IntentTag withSentAt = IntentTag.builder().operation("create-payment").scope("tenant-42")
        .businessId("order-7").volatileFields("sentAt").build();
    String first = "{\"order\":\"order-7\",\"amount\":1000,\"sentAt\":\"09:00\"}";
    String later = "{\"order\":\"order-7\",\"amount\":1000,\"sentAt\":\"09:05\"}";
    assertThatThrownBy(() -> app(interceptor(1), new GzipRequestInterceptor())
        .newCall(payment(first, withSentAt)).execute())
        .isInstanceOf(IntentIOException.class);

    try (Response response = app(interceptor(1), new GzipRequestInterceptor())
        .newCall(payment(later, withSentAt)).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }

    List<ReceivedRequest> sent = posts();
    assertThat(sent).hasSize(2);
    assertThat(gunzip(sent.get(1).body())).isEqualTo(first);
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  /** An app interceptor that declares {@code coding} and sends {@code bytes} as they are. */
  private static Interceptor declares(String coding, byte[] bytes) {
    return chain -> chain.proceed(chain.request().newBuilder()
        .header("Content-Encoding", coding)
        .method(chain.request().method(), RequestBody.create(bytes,
            chain.request().body().contentType()))
        .build());
  }

  @Test
  void a_body_in_a_coding_the_sdk_cannot_decode_is_an_intent_of_its_exact_bytes()
      throws Exception {
    start(Protocol.HTTP_1_1, true);
    byte[] brotli = {(byte) 0x8b, 0x0f, (byte) 0x80, 0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d, 3};
    byte[] otherBrotli = {(byte) 0x8b, 0x0f, (byte) 0x80, 0x7b, 0x22, 0x61, 0x22, 0x3a, 0x32, 0x7d,
        3};
    assertThatThrownBy(() -> app(interceptor(1), declares("br", brotli))
        .newCall(payment(BODY)).execute())
        .isInstanceOf(IntentIOException.class)
        .hasCauseInstanceOf(IntentPendingException.class);
    IntentRecord pending = record();
    assertThat(pending.body()).isEqualTo(brotli);
    assertThat(pending.headers()).containsEntry("Content-Encoding", List.of("br"));

    assertThatThrownBy(() -> app(interceptor(1), declares("br", otherBrotli))
        .newCall(payment(BODY)).execute())
        .isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(PayloadMismatchException.class);
    assertThat(kit.requests().size()).isEqualTo(1);

    try (Response response = app(interceptor(1), declares("br", brotli))
        .newCall(payment(BODY)).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }
    List<ReceivedRequest> sent = posts();
    assertThat(sent).extracting(r -> r.header("Content-Encoding")).containsOnly("br");
    assertThat(sent).extracting(ReceivedRequest::body)
        .allSatisfy(body -> assertThat(body).isEqualTo(brotli));
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void volatile_fields_named_for_a_body_the_sdk_cannot_decode_are_refused_before_any_io()
      throws Exception {
    start(Protocol.HTTP_1_1, false);
    IntentTag withSentAt = IntentTag.builder().operation("create-payment").scope("tenant-42")
        .businessId("order-7").volatileFields("sentAt").build();

    assertThatThrownBy(() -> app(interceptor(1), declares("br", new byte[] {1, 2, 3}))
        .newCall(payment(BODY, withSentAt)).execute())
        .isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(InvalidIntentException.class)
        .hasMessageContaining("volatileFields").hasMessageContaining("br");
    assertThat(kit.requests().size()).isZero();
    assertThat(store.findByBusinessId("tenant-42", "create-payment", "order-7")).isEmpty();
  }

  @Test
  void a_body_declared_gzip_that_is_not_gzip_is_refused_before_anything_is_stored_or_sent()
      throws Exception {
    start(Protocol.HTTP_1_1, false);

    assertThatThrownBy(() -> app(interceptor(1),
        declares("gzip", BODY.getBytes(StandardCharsets.UTF_8))).newCall(payment(BODY)).execute())
        .isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(InvalidIntentException.class)
        .hasMessageContaining("declared gzip but is not");
    assertThat(kit.requests().size()).isZero();
    assertThat(store.findByBusinessId("tenant-42", "create-payment", "order-7")).isEmpty();
  }

  @Test
  void a_gzipped_body_that_decodes_past_the_limit_is_refused_before_anything_is_stored_or_sent()
      throws Exception {
    start(Protocol.HTTP_1_1, false);
    String large = "{\"order\":\"order-7\",\"pad\":\"" + "0".repeat((int) (4 * LIMIT)) + "\"}";
    assertThat(gzip(large, Deflater.DEFAULT_COMPRESSION).length).isLessThan((int) LIMIT);

    assertThatThrownBy(() -> app(interceptor(1), new GzipRequestInterceptor())
        .newCall(payment(large)).execute())
        .isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(BodyTooLargeException.class)
        .hasMessageContaining("decoded");
    assertThat(kit.requests().size()).isZero();
    assertThat(store.findByBusinessId("tenant-42", "create-payment", "order-7")).isEmpty();
  }

  @Test
  void a_poll_of_a_gzipped_intent_carries_no_content_encoding() throws Exception {
    start(Protocol.HTTP_1_1, false, FaultScript.none(),
        b -> b.asynchronous(true).completeAfterPolls(1));

    try (Response response = app(interceptor(5), new GzipRequestInterceptor())
        .newCall(payment(BODY)).execute()) {
      assertThat(response.code()).isEqualTo(200);
    }

    List<ReceivedRequest> polls = kit.requests().all().stream()
        .filter(r -> r.method().equals("GET")).toList();
    assertThat(polls).isNotEmpty();
    assertThat(polls).allSatisfy(poll -> assertThat(poll.has("Content-Encoding")).isFalse());
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  // The intent API: a spec may carry Content-Encoding as one of its headers.

  private IdempotentClient client(int attempts) {
    return IdempotentClient.builder().store(store).clock(clock)
        .sleeper(new RecordingSleeper(clock)).listener(IntentListener.NONE)
        .retryPolicy(RetryPolicy.builder().maxAttempts(attempts).baseDelay(Duration.ofMillis(10))
            .attemptTimeout(Duration.ofSeconds(5)).deadline(Duration.ofMinutes(5)).build())
        .build();
  }

  private IntentSpec.Builder gzippedSpec(byte[] gzip) {
    return IntentSpec.builder().operation("create-payment").scope("tenant-42")
        .businessId("order-7").post(server.url("/payments").toString())
        .body(gzip, "application/json").header("Content-Encoding", "gzip");
  }

  @Test
  void the_intent_api_takes_a_gzipped_spec_as_its_decoded_json_and_resends_it_as_stored()
      throws Exception {
    start(Protocol.HTTP_1_1, true);
    IntentSpec first = gzippedSpec(gzip(BODY, Deflater.BEST_SPEED)).build();
    IntentSpec again = gzippedSpec(gzip(BODY, Deflater.NO_COMPRESSION)).build();
    assertThat(again.body()).isNotEqualTo(first.body());
    assertThat(first.fingerprint()).isEqualTo(again.fingerprint())
        .isEqualTo(jsonFingerprint(BODY));

    try (IdempotentClient client = client(1)) {
      assertThat(client.execute(first)).isInstanceOf(IntentOutcome.Pending.class);
    }
    try (IdempotentClient restarted = client(1)) {
      assertThat(restarted.execute(again)).isInstanceOf(IntentOutcome.Completed.class);
    }

    List<ReceivedRequest> sent = posts();
    assertThat(sent).hasSize(2);
    allSentAsTheFirst(sent, gzip(BODY, Deflater.BEST_SPEED));
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void a_spec_declared_gzip_that_is_not_or_that_decodes_past_its_limit_is_refused_at_build() {
    assertThatThrownBy(() -> IntentSpec.builder().operation("create-payment").scope("tenant-42")
        .post("https://api.example.com/payments").jsonBody(BODY)
        .header("Content-Encoding", "gzip").build())
        .isInstanceOf(InvalidIntentException.class)
        .hasMessageContaining("declared gzip but is not");

    String large = "{\"pad\":\"" + "0".repeat(64 * 1024) + "\"}";
    assertThatThrownBy(() -> IntentSpec.builder().operation("create-payment").scope("tenant-42")
        .post("https://api.example.com/payments").maxBodyBytes(LIMIT)
        .body(gzip(large, Deflater.DEFAULT_COMPRESSION), "application/json")
        .header("Content-Encoding", "gzip").build())
        .isInstanceOf(BodyTooLargeException.class)
        .hasMessageContaining("decoded");
  }

  @Test
  void a_spec_in_a_coding_the_sdk_cannot_decode_is_its_exact_bytes_and_takes_no_volatile_fields() {
    IntentSpec.Builder brotli = IntentSpec.builder().operation("create-payment")
        .scope("tenant-42").post("https://api.example.com/payments")
        .body(new byte[] {1, 2, 3}, "application/json").header("Content-Encoding", "br");
    IntentSpec.Builder otherBrotli = IntentSpec.builder().operation("create-payment")
        .scope("tenant-42").post("https://api.example.com/payments")
        .body(new byte[] {1, 2, 4}, "application/json").header("Content-Encoding", "br");

    assertThat(brotli.build().fingerprint()).isNotEqualTo(otherBrotli.build().fingerprint());
    assertThatThrownBy(() -> brotli.volatileFields("sentAt").build())
        .isInstanceOf(InvalidIntentException.class)
        .hasMessageContaining("volatileFields").hasMessageContaining("br");
  }

  @Test
  void a_gzipped_record_of_the_interceptor_is_resumed_by_the_intent_api_with_its_coding()
      throws Exception {
    start(Protocol.HTTP_1_1, true);
    assertThatThrownBy(() -> app(interceptor(1), new GzipRequestInterceptor())
        .newCall(payment(BODY)).execute())
        .isInstanceOf(IntentIOException.class);
    IntentRecord pending = record();

    try (IdempotentClient client = client(1)) {
      assertThat(client.resumePending().get(0).get(10, TimeUnit.SECONDS))
          .isInstanceOf(IntentOutcome.Completed.class);
    }

    List<ReceivedRequest> sent = posts();
    assertThat(sent).hasSize(2);
    allSentAsTheFirst(sent, pending.body());
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void a_gzipped_record_of_the_intent_api_is_resumed_by_the_interceptor_with_its_coding()
      throws Exception {
    start(Protocol.HTTP_1_1, true);
    byte[] bytes = gzip(BODY, Deflater.BEST_SPEED);
    try (IdempotentClient client = client(1)) {
      assertThat(client.execute(gzippedSpec(bytes).build()))
          .isInstanceOf(IntentOutcome.Pending.class);
    }

    IdempotencyInterceptor restarted = interceptor(1);
    IntentOutcome outcome = restarted.resumePending(app(restarted,
        new GzipRequestInterceptor()), o -> { }).get(0).get(10, TimeUnit.SECONDS);

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    List<ReceivedRequest> sent = posts();
    assertThat(sent).hasSize(2);
    allSentAsTheFirst(sent, bytes);
    assertThat(sent.get(1).headerValues("Content-Encoding")).containsExactly("gzip");
    assertThat(kit.ledger().size()).isEqualTo(1);
  }
}
