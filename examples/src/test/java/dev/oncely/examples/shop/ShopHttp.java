package dev.oncely.examples.shop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * A plain OkHttp client of a shop for the tests: one call per method, connection retries off so a
 * test sees exactly what one attempt got.
 */
final class ShopHttp {
  static final MediaType JSON = MediaType.get("application/json");

  private final OkHttpClient client;
  private final String base;

  ShopHttp(String baseUrl) {
    this(baseUrl, Duration.ofSeconds(20));
  }

  /**
   * A client whose connections are not kept between calls: a connection pooled from a shop that
   * was killed since would fail the next call before it reaches the new one.
   */
  ShopHttp(String baseUrl, Duration readTimeout) {
    this.client = new OkHttpClient.Builder()
        .retryOnConnectionFailure(false)
        .connectionPool(new ConnectionPool(0, 1, TimeUnit.SECONDS))
        .readTimeout(readTimeout)
        .build();
    this.base = baseUrl.endsWith("/") ? baseUrl : baseUrl + "/";
  }

  /** The body of order {@code n}: 1000 + n JPY for customer c-n. */
  static String payment(int n) {
    return "{\"amount\":" + (1000 + n) + ",\"currency\":\"JPY\",\"customer\":\"c-" + n
        + "\",\"order\":\"o-" + n + "\"}";
  }

  /** {@code POST /payments} with {@code Idempotency-Key: keyHeader} (null: none). */
  Answer pay(String keyHeader, String body) throws IOException {
    Request.Builder r = new Request.Builder().url(base + "payments")
        .post(RequestBody.create(body, JSON));
    if (keyHeader != null) {
      r.header("Idempotency-Key", keyHeader);
    }
    return call(r.build());
  }

  /** {@code POST /webhooks/<source>} with {@code headers} and {@code body} as they are signed. */
  Answer webhook(String source, java.util.Map<String, String> headers, String body)
      throws IOException {
    Request.Builder r = new Request.Builder().url(base + "webhooks/" + source)
        .post(RequestBody.create(body.getBytes(StandardCharsets.UTF_8), JSON));
    headers.forEach(r::header);
    return call(r.build());
  }

  /** {@code GET path}. */
  Answer get(String path) throws IOException {
    return call(new Request.Builder().url(base + strip(path)).build());
  }

  /** {@code POST path} with an empty body. */
  Answer post(String path) throws IOException {
    return call(new Request.Builder().url(base + strip(path))
        .post(RequestBody.create(new byte[0], null)).build());
  }

  ShopStats stats() throws IOException {
    Answer a = get("/stats");
    if (a.status() != 200) {
      throw new IOException("GET /stats answered " + a.status());
    }
    return ShopStats.fromJson(a.text());
  }

  private static String strip(String path) {
    return path.startsWith("/") ? path.substring(1) : path;
  }

  private Answer call(Request request) throws IOException {
    try (Response response = client.newCall(request).execute()) {
      return new Answer(response.code(), response.body().bytes(),
          response.header("Idempotent-Replayed"), response.header("Location"),
          response.header("Content-Type"), response.header("Retry-After"));
    }
  }

  /** What one call received. */
  record Answer(int status, byte[] body, String replayed, String location, String contentType,
      String retryAfter) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }
}
