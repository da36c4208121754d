package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.EventCounter;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.event.LoggingListener;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

/** The code shown in {@code docs/client.md}, compiled and run against a local server. */
class QuickStartExamplesTest {
  @StartStop
  private final MockWebServer server = new MockWebServer();

  @Test
  void intent_api_quick_start_compiles_and_completes() {
    server.enqueue(new MockResponse.Builder().code(409).addHeader("Retry-After", "0").build());
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}").build());
    String paymentsUrl = server.url("/payments").toString();

    // --- docs/client.md: intent API ---
    EventCounter counter = new EventCounter();
    try (IdempotentClient client = IdempotentClient.builder()
        .dialect(Dialects.ietf())
        .headerProvider((id, url) -> Map.of("Authorization", "Bearer " + currentToken()))
        .listener(IntentListener.all(counter, LoggingListener.instance()))
        .build()) {

      IntentSpec spec = IntentSpec.builder()
          .operation("create-payment")
          .scope("tenant-42")
          .post(paymentsUrl)
          .jsonBody("{\"amount\":1000,\"currency\":\"JPY\"}")
          .businessId("order-7")
          .build();

      IntentOutcome outcome = client.execute(spec);
      switch (outcome.state()) {
        case COMPLETED -> {
          IntentOutcome.Completed done = (IntentOutcome.Completed) outcome;
          String body = new String(done.response().body(), StandardCharsets.UTF_8);
          assertThat(body).contains("pay_1");
        }
        case PENDING -> {
          // Unknown, not failed: check again later (resumePending() or execute(spec) again).
        }
        default -> {
          // REJECTED, KEY_CONFLICT, NEEDS_RECONCILIATION: see docs/client.md.
        }
      }
      assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    }
    // --- end ---
    assertThat(counter.attempts()).isEqualTo(2);
    assertThat(counter.retries()).isEqualTo(1);
  }

  @Test
  void interceptor_quick_start_compiles_and_completes() throws IOException {
    server.enqueue(new MockResponse.Builder().code(409).addHeader("Retry-After", "0").build());
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"ord_1\"}").build());
    String ordersUrl = server.url("/orders").toString();

    // --- docs/client.md: plain OkHttp interceptor ---
    OkHttpClient http = IdempotencyInterceptor.builder()
        .dialect(Dialects.ietf())
        .methods("POST", "PATCH")
        .build()
        .installOn(new OkHttpClient.Builder())   // application + network interceptor
        .build();

    Request request = new Request.Builder()
        .url(ordersUrl)
        .post(RequestBody.create("{\"sku\":\"A-1\"}", MediaType.get("application/json")))
        .build();
    try (Response response = http.newCall(request).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }
    // --- end ---
  }

  private static String currentToken() {
    return "token-from-your-auth-layer";
  }
}
