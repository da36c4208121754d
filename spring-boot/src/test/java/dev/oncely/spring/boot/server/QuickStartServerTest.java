package dev.oncely.spring.boot.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.spring.boot.server.quickstart.QuickStartServerApp;
import java.io.IOException;
import java.nio.file.Path;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The quick start of {@code docs/server.md} as written: {@link
 * QuickStartServerApp} with its one property ({@code quickstart-server.properties}, the snippet's
 * {@code application.properties}), asked the snippet's three {@code curl} requests, then a new
 * key that shows what was charged. Only the port and the store files differ (a free port, a temp
 * directory).
 */
class QuickStartServerTest {
  @TempDir
  Path dir;

  private final OkHttpClient http = new OkHttpClient();

  /** An answer as {@code curl -i} shows it. */
  record Answer(int status, String body, String replayed, String contentType) {}

  private static Answer post(OkHttpClient http, int port, String key, String json)
      throws IOException {
    Request request = new Request.Builder().url("http://localhost:" + port + "/payments")
        .header("Idempotency-Key", key)
        .post(RequestBody.create(json, MediaType.get("application/json"))).build();
    try (Response response = http.newCall(request).execute()) {
      return new Answer(response.code(), response.body().string(),
          response.header("Idempotent-Replayed"), response.header("Content-Type"));
    }
  }

  @Test
  void the_quick_start_charges_once_replays_the_repeat_and_refuses_another_payload()
      throws Exception {
    try (ConfigurableApplicationContext app = SpringApplication.run(QuickStartServerApp.class,
        "--spring.config.name=quickstart-server", "--server.port=0",
        "--oncely.server.store.path=" + dir.resolve("receipts.db"),
        "--oncely.store.path=" + dir.resolve("intents.db"))) {
      int port = ((WebServerApplicationContext) app).getWebServer().getPort();

      Answer first = post(http, port, "\"order-7\"", "{\"amount\":1000}");
      Answer again = post(http, port, "\"order-7\"", "{\"amount\":1000}");
      Answer changed = post(http, port, "\"order-7\"", "{\"amount\":5}");
      Answer next = post(http, port, "\"order-8\"", "{\"amount\":5}");

      assertThat(first.status()).isEqualTo(201);
      assertThat(first.body()).contains("\"id\":\"pay_1\"").contains("\"amount\":1000");
      assertThat(first.contentType()).isEqualTo("application/json");
      assertThat(again).isEqualTo(new Answer(201, first.body(), "true", first.contentType()));
      assertThat(changed.status()).isEqualTo(422);
      assertThat(changed.contentType()).startsWith("application/problem+json");
      assertThat(changed.body())
          .contains("\"type\":\"https://oncely.dev/problems/idempotency-key-reused\"");
      // The repeat and the refused payload charged nothing: the next key is the second charge.
      assertThat(next.body()).contains("\"id\":\"pay_2\"");
    }
  }
}
