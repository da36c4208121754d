package dev.oncely.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.IntentTag;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.testing.GzipRequestInterceptor;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.ReceivedRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import mockwebserver3.MockWebServer;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A gzipped intent survives a real restart: the app compresses its JSON with OkHttp's recipe
 * before the SDK, the first attempt takes effect and its answer is lost, the process "dies" (the
 * interceptor and the store file are closed), and a new interceptor on the reopened file either
 * re-issues the same call or resumes the record through the app's client. The server sees the
 * same key, {@code Content-Encoding: gzip} and byte-identical bytes, and counts one effect. Over
 * both durable engines.
 */
class CompressedBodyRestartTest {
  private static final String BODY = "{\"order\":\"order-7\",\"amount\":1000,\"currency\":\"JPY\"}";
  private static final IntentTag TAG = IntentTag.builder().operation("create-payment")
      .scope("tenant-42").businessId("order-7").build();

  /** How the restarted app finishes the intent. */
  enum AfterRestart { REISSUE, RESUME_PENDING }

  @TempDir Path dir;
  private final MockWebServer server = new MockWebServer();

  @AfterEach
  void stop() {
    server.close();
  }

  static Stream<Arguments> cases() {
    return Stream.of("sqlite", "mapdb").flatMap(engine -> Stream.of(AfterRestart.values())
        .map(after -> Arguments.of(engine, after)));
  }

  private IntentStore open(String engine) {
    return engine.equals("sqlite") ? SqliteIntentStore.open(dir.resolve("intents.db"))
        : MapDbIntentStore.open(dir.resolve("intents.mapdb"));
  }

  private static IdempotencyInterceptor interceptor(IntentStore store) {
    return IdempotencyInterceptor.builder().store(store).listener(IntentListener.NONE)
        .retryPolicy(RetryPolicy.builder().maxAttempts(1).attemptTimeout(Duration.ofSeconds(5))
            .deadline(Duration.ofSeconds(30)).build())
        .build();
  }

  /** The app's client: its credentials, OkHttp's gzip recipe, then the SDK. */
  private static OkHttpClient app(IdempotencyInterceptor interceptor) {
    return interceptor.installOn(new OkHttpClient.Builder()
        .addInterceptor(chain -> chain.proceed(chain.request().newBuilder()
            .header("Authorization", "Bearer app-token").build()))
        .addInterceptor(new GzipRequestInterceptor())).build();
  }

  private Request payment() {
    return new Request.Builder().url(server.url("/payments")).tag(IntentTag.class, TAG)
        .post(RequestBody.create(BODY, MediaType.get("application/json"))).build();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void a_gzipped_intent_is_the_same_intent_after_the_store_file_is_reopened(String engine,
      AfterRestart after) throws Exception {
    IdempotentServer kit = IdempotentServer.builder()
        .faults(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build()).build();
    server.setDispatcher(kit);
    server.start();

    IntentRecord pending;
    try (IntentStore store = open(engine)) {
      IdempotencyInterceptor first = interceptor(store);
      assertThatThrownBy(() -> app(first).newCall(payment()).execute())
          .isInstanceOf(IntentIOException.class);
      first.close();
      pending = store.findByBusinessId("tenant-42", "create-payment", "order-7").orElseThrow();
    }
    assertThat(pending.state()).isEqualTo(IntentState.PENDING);
    assertThat(pending.headers()).containsEntry("Content-Encoding", List.of("gzip"))
        .doesNotContainKey("Authorization");

    try (IntentStore reopened = open(engine)) {
      IdempotencyInterceptor restarted = interceptor(reopened);
      if (after == AfterRestart.REISSUE) {
        try (Response response = app(restarted).newCall(payment()).execute()) {
          assertThat(response.code()).isEqualTo(201);
        }
      } else {
        IntentOutcome outcome = restarted.resumePending(app(restarted), o -> { }).get(0)
            .get(10, TimeUnit.SECONDS);
        assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
      }
      restarted.close();
      assertThat(reopened.get(pending.id()).orElseThrow().state())
          .isEqualTo(IntentState.COMPLETED);
    }

    List<ReceivedRequest> sent = kit.requests().all();
    assertThat(sent).hasSize(2);
    assertThat(sent).extracting(r -> r.header(IdempotentServer.DEFAULT_KEY_HEADER))
        .containsOnly("\"" + pending.id().key() + "\"");
    assertThat(sent).extracting(r -> r.headerValues("Content-Encoding"))
        .containsOnly(List.of("gzip"));
    assertThat(sent).extracting(ReceivedRequest::body)
        .allSatisfy(body -> assertThat(body).isEqualTo(pending.body()));
    assertThat(kit.ledger().countOf(pending.id().key())).isEqualTo(1);
    assertThat(kit.ledger().size()).isEqualTo(1);
  }
}
