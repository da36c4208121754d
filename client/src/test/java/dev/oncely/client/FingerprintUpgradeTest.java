package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import java.time.Instant;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

/**
 * A record stored by a release before fingerprint version 2 carries an unprefixed fingerprint; a
 * resubmit of the same payload after the upgrade must be the same intent, never a mismatch.
 */
class FingerprintUpgradeTest {
  private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");
  private static final String CLIENT_BODY = "{\"amount\":1000,\"currency\":\"JPY\"}";
  /** What the release before version 2 stored for {@link #CLIENT_BODY} (fingerprints-v1.tsv). */
  private static final String CLIENT_BODY_V1 =
      "a335e8f5ea13abbef4ce7d128069106e2374515c532ea30c317f23afcf38d696";
  private static final String INTERCEPTOR_BODY = "{\"amount\":1000}";
  private static final String INTERCEPTOR_BODY_V1 =
      "612612d208fb618eb2b007d2a7f8d7a1cfb511532389298f1cc33322c3094bcc";

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  private final InMemoryIntentStore store = new InMemoryIntentStore();

  private IdempotentClient client() {
    return IdempotentClient.builder().store(store).clock(clock)
        .sleeper(new RecordingSleeper(clock)).build();
  }

  private IntentSpec spec(String json) {
    return IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post(server.url("/payments").toString()).jsonBody(json).build();
  }

  /** Rewrites the stored record as the older release would have left it. */
  private void storeAsBeforeVersion2(IntentId id, String oldFingerprint) {
    IntentRecord now = store.get(id).orElseThrow();
    assertThat(now.fingerprint()).startsWith("v2:");
    assertThat(store.compareAndSet(now, now.toBuilder().fingerprint(oldFingerprint)
        .revision(now.revision() + 1).build()))
        .isTrue();
  }

  @Test
  void a_resubmit_after_the_upgrade_finds_the_intent_stored_before_it() {
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}").build());
    IntentSpec spec = spec(CLIENT_BODY);
    try (IdempotentClient before = client()) {
      assertThat(before.execute(spec)).isInstanceOf(IntentOutcome.Completed.class);
    }
    storeAsBeforeVersion2(spec.id(), CLIENT_BODY_V1);

    try (IdempotentClient after = client()) {
      IntentOutcome again = after.execute(spec.toBuilder()
          .jsonBody("{ \"currency\": \"JPY\", \"amount\": 1000 }").build());

      assertThat(again).isInstanceOf(IntentOutcome.Completed.class);
      assertThat(server.getRequestCount()).isEqualTo(1);
    }
  }

  @Test
  void a_changed_payload_after_the_upgrade_is_still_a_mismatch() {
    server.enqueue(new MockResponse.Builder().code(201).build());
    IntentSpec spec = spec(CLIENT_BODY);
    try (IdempotentClient before = client()) {
      before.execute(spec);
    }
    storeAsBeforeVersion2(spec.id(), CLIENT_BODY_V1);
    IntentSpec changed = spec.toBuilder()
        .jsonBody("{\"amount\":1001,\"currency\":\"JPY\"}").build();

    try (IdempotentClient after = client()) {
      assertThatThrownBy(() -> after.execute(changed))
          .isInstanceOf(PayloadMismatchException.class);
      assertThat(server.getRequestCount()).isEqualTo(1);
    }
  }

  @Test
  void the_interceptor_answers_a_repeated_key_stored_before_the_upgrade_from_the_store()
      throws Exception {
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":1}").build());
    OkHttpClient http = new OkHttpClient.Builder()
        .addInterceptor(IdempotencyInterceptor.builder().store(store).clock(clock)
            .sleeper(new RecordingSleeper(clock)).build())
        .build();
    Request request = new Request.Builder().url(server.url("/orders"))
        .header("Idempotency-Key", "\"k-1\"")
        .post(RequestBody.create(INTERCEPTOR_BODY, MediaType.get("application/json"))).build();
    http.newCall(request).execute().close();
    storeAsBeforeVersion2(IntentId.of(server.getHostName(), "POST /orders", "k-1"),
        INTERCEPTOR_BODY_V1);

    try (Response again = http.newCall(request).execute()) {
      assertThat(again.header(IdempotencyInterceptor.STORED_RESPONSE_HEADER)).isEqualTo("true");
      assertThat(again.body().string()).isEqualTo("{\"id\":1}");
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
  }
}
