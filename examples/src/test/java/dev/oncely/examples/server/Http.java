package dev.oncely.examples.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * A thin OkHttp helper for the server tests. Connection-failure retries are off so that every
 * injected fault reaches the test as the failure a single attempt sees.
 */
final class Http {
  static final MediaType JSON = MediaType.get("application/json");

  private final OkHttpClient client;
  private final String base;

  Http(ReferenceServer server) {
    this(server, Duration.ofSeconds(10));
  }

  Http(ReferenceServer server, Duration readTimeout) {
    this.client = new OkHttpClient.Builder()
        .retryOnConnectionFailure(false)
        .readTimeout(readTimeout)
        .build();
    this.base = server.baseUrl();
  }

  static String payment(int i) {
    return "{\"amount\":" + (1000 + i) + ",\"currency\":\"JPY\",\"customer\":\"c-" + i
        + "\",\"order\":\"o-" + i + "\"}";
  }

  Answer post(String keyHeader, String body) throws IOException {
    return post(keyHeader, null, body);
  }

  Answer post(String keyHeader, String tenant, String body) throws IOException {
    Request.Builder r = new Request.Builder()
        .url(base + "payments")
        .post(RequestBody.create(body, JSON));
    if (keyHeader != null) {
      r.header("Idempotency-Key", keyHeader);
    }
    if (tenant != null) {
      r.header("X-Tenant", tenant);
    }
    return call(r.build());
  }

  Answer get(String path) throws IOException {
    String relative = path.startsWith("/") ? path.substring(1) : path;
    return call(new Request.Builder().url(base + relative).build());
  }

  private Answer call(Request request) throws IOException {
    try (Response response = client.newCall(request).execute()) {
      return new Answer(response.code(), response.body().bytes(),
          response.header("Idempotent-Replayed"), response.header("Retry-After"),
          response.header("Location"), response.header("Content-Type"));
    }
  }

  /** What one call received. */
  record Answer(int status, byte[] body, String replayed, String retryAfter, String location,
      String contentType) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }
}
