package dev.oncely.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.IntentTag;
import dev.oncely.client.PayloadMismatchException;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.event.IntentListener;
import dev.oncely.payload.Fingerprints;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.ReceivedRequest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import mockwebserver3.MockWebServer;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okio.BufferedSink;
import okio.GzipSink;
import okio.Okio;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * A {@link RestClient} on {@link OncelyClientHttpRequestFactory} whose app compresses request
 * bodies, with a Spring {@link ClientHttpRequestInterceptor} before the factory or with OkHttp's
 * gzip recipe on the factory's client: a tagged JSON {@code POST} is one intent, fingerprinted by
 * its JSON, and every attempt (after a {@code 503}, a dropped answer, a resume after a restart on a
 * reopened store file) carries {@code Content-Encoding: gzip} and the same bytes; the server counts
 * one effect.
 */
class CompressedBodySpringTest {
  private static final String BODY = "{\"order\":\"order-7\",\"amount\":1000}";
  private static final String KEY_HEADER = IdempotentServer.DEFAULT_KEY_HEADER;

  @TempDir
  Path dir;

  private final MockWebServer server = new MockWebServer();
  private IdempotentServer kit;
  private IntentStore store;

  private void start(FaultScript faults) throws Exception {
    kit = IdempotentServer.builder().faults(faults).build();
    server.setDispatcher(kit);
    server.start();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    if (store != null) {
      store.close();
    }
  }

  private IntentStore openStore() {
    store = MapDbIntentStore.open(dir.resolve("intents.db"));
    return store;
  }

  private static IdempotencyInterceptor interceptor(IntentStore store, int maxAttempts) {
    return IdempotencyInterceptor.builder().store(store).listener(IntentListener.NONE)
        .retryPolicy(RetryPolicy.builder().maxAttempts(maxAttempts)
            .baseDelay(Duration.ofMillis(5)).maxDelay(Duration.ofMillis(20))
            .attemptTimeout(Duration.ofSeconds(2)).deadline(Duration.ofSeconds(20)).build())
        .build();
  }

  /** A Spring interceptor that gzips every body that declares no coding yet. */
  private static final ClientHttpRequestInterceptor GZIP = (request, body, execution) -> {
    if (body.length == 0 || request.getHeaders().containsHeader(HttpHeaders.CONTENT_ENCODING)) {
      return execution.execute(request, body);
    }
    byte[] compressed = gzip(body);
    request.getHeaders().set(HttpHeaders.CONTENT_ENCODING, "gzip");
    request.getHeaders().setContentLength(compressed.length);
    return execution.execute(request, compressed);
  };

  /** OkHttp's gzip recipe, as an app puts it on the client it gives the factory. */
  private static final Interceptor OKHTTP_GZIP = chain -> {
    Request original = chain.request();
    if (original.body() == null || original.header("Content-Encoding") != null) {
      return chain.proceed(original);
    }
    RequestBody body = original.body();
    return chain.proceed(original.newBuilder().header("Content-Encoding", "gzip")
        .method(original.method(), new RequestBody() {
          @Override
          public okhttp3.MediaType contentType() {
            return body.contentType();
          }

          @Override
          public long contentLength() {
            return -1;
          }

          @Override
          public void writeTo(BufferedSink sink) throws IOException {
            try (BufferedSink gzipSink = Okio.buffer(new GzipSink(sink))) {
              body.writeTo(gzipSink);
            }
          }
        }).build());
  };

  private RestClient springGzipping(OncelyClientHttpRequestFactory factory) {
    return RestClient.builder().requestFactory(factory).requestInterceptor(GZIP)
        .defaultHeader(HttpHeaders.AUTHORIZATION, "Bearer secret-token").build();
  }

  private static IntentTag tag() {
    return IntentTag.builder().operation("create-payment").scope("tenant-42")
        .businessId("order-7").build();
  }

  private ResponseEntity<String> pay(RestClient client, String body) {
    return client.post().uri(server.url("/payments").uri())
        .attributes(IntentAttributes.of(tag()))
        .contentType(MediaType.APPLICATION_JSON)
        .body(body)
        .retrieve()
        .toEntity(String.class);
  }

  private IntentRecord record() {
    return store.findByBusinessId("tenant-42", "create-payment", "order-7").orElseThrow();
  }

  private static byte[] gzip(byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
      gzip.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static String gunzip(byte[] bytes) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Every request carries the first one's key, {@code Content-Encoding: gzip} and bytes. */
  private static void allSentAsTheFirst(List<ReceivedRequest> sent) throws IOException {
    assertThat(sent).extracting(r -> r.header(KEY_HEADER)).doesNotContainNull()
        .containsOnly(sent.get(0).header(KEY_HEADER));
    assertThat(sent).extracting(r -> r.headerValues("Content-Encoding"))
        .containsOnly(List.of("gzip"));
    assertThat(sent).extracting(ReceivedRequest::body)
        .allSatisfy(body -> assertThat(body).isEqualTo(sent.get(0).body()));
    assertThat(gunzip(sent.get(0).body())).isEqualTo(BODY);
  }

  @Test
  void a_body_gzipped_by_a_spring_interceptor_is_resent_with_its_coding_after_a_503_and_a_drop()
      throws Exception {
    start(FaultScript.builder().onRequest(1, Fault.handlerError(503))
        .onRequest(2, Fault.dropAfterCommit()).build());

    ResponseEntity<String> answer = pay(springGzipping(
        OncelyClientHttpRequestFactory.builder(interceptor(openStore(), 5)).build()), BODY);

    assertThat(answer.getStatusCode().value()).isEqualTo(201);
    List<ReceivedRequest> sent = kit.requests().all();
    assertThat(sent).hasSize(3);
    allSentAsTheFirst(sent);
    assertThat(kit.ledger().size()).isEqualTo(1);
    IntentRecord record = record();
    assertThat(record.fingerprint()).as("the fingerprint of the decoded JSON")
        .isEqualTo(Fingerprints.ofPayload(BODY.getBytes(StandardCharsets.UTF_8),
            "application/json", Set.of()));
    assertThat(record.headers()).containsEntry("Content-Encoding", List.of("gzip"))
        .doesNotContainKey("Authorization");
  }

  @Test
  void a_gzipped_intent_left_pending_is_resumed_after_a_restart_with_its_coding_once()
      throws Exception {
    start(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build());
    OncelyClientHttpRequestFactory first =
        OncelyClientHttpRequestFactory.builder(interceptor(openStore(), 1)).build();
    assertThatThrownBy(() -> pay(springGzipping(first), BODY))
        .isInstanceOf(UnknownOutcomeException.class);
    first.close();
    store.close();

    OncelyClientHttpRequestFactory restarted =
        OncelyClientHttpRequestFactory.builder(interceptor(openStore(), 3)).build();
    assertThat(restarted.resumePending(outcome -> { })).singleElement()
        .extracting(f -> f.join()).isInstanceOf(IntentOutcome.Completed.class);

    List<ReceivedRequest> sent = kit.requests().all();
    assertThat(sent).hasSize(2);
    allSentAsTheFirst(sent);
    assertThat(sent.get(1).header("Authorization")).as("the resume carries no stored credential")
        .isNull();
    assertThat(kit.ledger().size()).isEqualTo(1);
    // The same call re-issued after the restart is the same intent: the stored answer, no I/O.
    assertThat(pay(springGzipping(restarted), BODY).getHeaders()
        .getFirst(IdempotencyInterceptor.STORED_RESPONSE_HEADER)).isEqualTo("true");
    assertThat(kit.requests().size()).isEqualTo(2);
    assertThat(record().state()).isEqualTo(IntentState.COMPLETED);
  }

  @Test
  void okhttps_gzip_recipe_on_the_factorys_client_gives_one_intent_with_its_coding()
      throws Exception {
    start(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build());
    OncelyClientHttpRequestFactory factory = OncelyClientHttpRequestFactory
        .builder(interceptor(openStore(), 3))
        .okHttpClient(new OkHttpClient.Builder().addInterceptor(OKHTTP_GZIP).build()).build();

    ResponseEntity<String> answer = pay(RestClient.builder().requestFactory(factory).build(),
        BODY);

    assertThat(answer.getStatusCode().value()).isEqualTo(201);
    List<ReceivedRequest> sent = kit.requests().all();
    assertThat(sent).hasSize(2);
    allSentAsTheFirst(sent);
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void a_changed_json_gzipped_under_a_used_business_id_is_refused_before_any_io()
      throws Exception {
    start(FaultScript.none());
    RestClient client = springGzipping(
        OncelyClientHttpRequestFactory.builder(interceptor(openStore(), 3)).build());
    pay(client, BODY);

    assertThatThrownBy(() -> pay(client, "{\"order\":\"order-7\",\"amount\":5}"))
        .isInstanceOf(ResourceAccessException.class)
        .cause().isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(PayloadMismatchException.class);
    assertThat(kit.requests().size()).isEqualTo(1);
  }
}
