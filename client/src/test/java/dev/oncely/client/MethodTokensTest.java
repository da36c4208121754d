package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
 * A new intent's method is an RFC 9110 token ({@link Identifiers#isToken}) through either entry
 * point, and a record keeps the method its intent was first sent with: one stored with a
 * visible-ASCII method the token rule refuses still reads, resumes and is resent as first sent.
 */
class MethodTokensTest {
  private static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  /** Visible ASCII, so a record may hold them; each has a delimiter no token may hold. */
  private static final List<String> NOT_TOKENS = List.of("DO/IT", "GET(X)", "M@X", "A:B",
      "POST;v=2", "{PATCH}", "\"POST\"");

  /**
   * A {@code PENDING} record of method {@code DO/IT}, maybe delivered once, as the record codec
   * wrote it before the token rule was shared (commit 3e1a4cf).
   */
  private static final String STORED_DO_IT = "4f5203000000000674656e616e740000000370617900000000"
      + "05444f2f49540000002168747470733a2f2f6170692e6578616d706c652e746573742f7061796d656e7473"
      + "0000000200000001000000000000000000000000006b0cbc8000000000000000006b0cbc80000000000000"
      + "00006b0e0e000000000000010000000000660000000c7365637265742d6b65792d3200000040"
      + "6364".repeat(32)
      + "000000000000000000000000000000000000e724d7b8";

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private IdempotentClient client;

  @AfterEach
  void close() {
    if (client != null) {
      client.close();
    }
  }

  private static IntentSpec.Builder spec() {
    return IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post("https://api.example.test/payments");
  }

  @Test
  void a_method_the_token_rule_refuses_is_refused_when_the_intent_is_created() {
    for (String method : NOT_TOKENS) {
      assertThatThrownBy(() -> spec().method(method)).as(method)
          .isInstanceOfSatisfying(InvalidIntentException.class,
              e -> assertThat(e.setting()).isEqualTo("method"))
          .hasMessageContaining("HTTP token");
    }
    for (String method : List.of("", " ", "PO ST", "P\u00d6ST")) {
      assertThatThrownBy(() -> spec().method(method)).as(method)
          .isInstanceOf(InvalidIntentException.class);
    }
    assertThatThrownBy(() -> spec().method(null)).isInstanceOf(InvalidIntentException.class);
  }

  @Test
  void every_token_is_a_method_in_upper_case() {
    assertThat(spec().method("purge").build().method()).isEqualTo("PURGE");
    assertThat(spec().method("x-Custom_1.a!#$%&'*+^`|~").build().method())
        .isEqualTo("X-CUSTOM_1.A!#$%&'*+^`|~");
    for (String method : List.of("PURGE", "X-CUSTOM!")) {
      assertThat(Identifiers.isToken(method)).as(method).isTrue();
    }
    for (String method : NOT_TOKENS) {
      assertThat(Identifiers.isToken(method)).as(method).isFalse();
    }
  }

  @Test
  void the_interceptor_refuses_such_a_method_before_anything_is_stored_or_sent() {
    try (IdempotencyInterceptor interceptor = IdempotencyInterceptor.builder().store(store)
        .clock(clock).sleeper(new RecordingSleeper(clock)).build()) {
      OkHttpClient app = new OkHttpClient.Builder().addInterceptor(interceptor)
          .addNetworkInterceptor(interceptor.networkInterceptor()).build();
      Request request = new Request.Builder().url(server.url("/payments"))
          .tag(IntentTag.class, IntentTag.builder().operation("create-payment")
              .scope("tenant-a").build())
          .method("DO/IT", RequestBody.create("{\"amount\":1}", MediaType.get("application/json")))
          .build();

      assertThatThrownBy(() -> app.newCall(request).execute())
          .isInstanceOf(IntentIOException.class)
          .cause().isInstanceOfSatisfying(InvalidIntentException.class,
              e -> assertThat(e.setting()).isEqualTo("method"))
          .hasMessageContaining("HTTP token");
    }
    assertThat(server.getRequestCount()).isZero();
    assertThat(store.listUnfinished()).isEmpty();
  }

  @Test
  void a_record_holds_any_visible_ascii_method_and_nothing_else() {
    IntentRecord.Builder record = IntentRecord.builder().id(IntentId.of("t", "op", "k-1"))
        .url("https://api.example.test/payments").fingerprint("cd".repeat(32))
        .state(IntentState.NEW).createdAt(T0).updatedAt(T0).expiresAt(T0.plusSeconds(60));
    for (String method : NOT_TOKENS) {
      assertThat(record.method(method).build().method()).isEqualTo(method);
    }
    for (String method : List.of("", "PO ST", "POST\r\n", "P\u00d6ST")) {
      assertThatThrownBy(() -> record.method(method).build()).as(method)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("visible ASCII");
    }
    assertThatThrownBy(() -> record.method(null).build()).isInstanceOf(NullPointerException.class);
  }

  @Test
  void a_record_stored_with_a_method_the_token_rule_refuses_still_reads() {
    IntentRecord read = new RecordCodec().decode(HexFormat.of().parseHex(STORED_DO_IT), "store.db");

    assertThat(read.method()).isEqualTo("DO/IT");
    assertThat(read.state()).isEqualTo(IntentState.PENDING);
    assertThat(read.successor().attempts(2).build().method()).isEqualTo("DO/IT");
    assertThat(new RecordCodec().decode(new RecordCodec().encode(read), "store.db"))
        .isEqualTo(read);
  }

  @Test
  void a_stored_intent_with_such_a_method_resumes_and_is_resent_as_first_sent() throws Exception {
    IntentSpec spec = spec().url(server.url("/payments").toString()).jsonBody("{\"amount\":1}")
        .build();
    store.create(IntentRecord.builder().id(spec.id()).method("DO/IT").url(spec.url())
        .body(spec.body(), spec.mediaType()).fingerprint(spec.fingerprint())
        .keyWireForm("Idempotency-Key", Dialects.ietf().formatKey(spec.key()))
        .state(IntentState.PENDING).attempts(1).maybeDelivered(true)
        .createdAt(T0).updatedAt(T0).expiresAt(T0.plus(Duration.ofDays(1))).build());
    server.enqueue(new MockResponse.Builder().code(201).build());
    client = IdempotentClient.builder().store(store).clock(clock)
        .sleeper(new RecordingSleeper(clock)).build();

    IntentOutcome resumed = client.resumePending().get(0).get(10, TimeUnit.SECONDS);

    assertThat(resumed).isInstanceOf(IntentOutcome.Completed.class);
    RecordedRequest sent = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(sent.getMethod()).isEqualTo("DO/IT");
    assertThat(sent.getHeaders().get("Idempotency-Key"))
        .isEqualTo(Dialects.ietf().formatKey(spec.key()));
    assertThat(sent.getBody().toByteArray()).isEqualTo(spec.body());
  }
}
