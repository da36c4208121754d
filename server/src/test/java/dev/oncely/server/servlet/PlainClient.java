package dev.oncely.server.servlet;

import dev.oncely.server.ServerDialect;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * A third-party client of an Oncely server: plain OkHttp, no Oncely client, keys it mints itself
 * and writes in the server's dialect. No redirects followed, no silent retries: every request the
 * test sends reaches the server once.
 */
final class PlainClient {
  static final MediaType JSON = MediaType.get("application/json");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final OkHttpClient http;

  PlainClient() {
    this(new OkHttpClient.Builder());
  }

  PlainClient(OkHttpClient.Builder builder) {
    Dispatcher dispatcher = new Dispatcher();
    dispatcher.setMaxRequests(128);
    dispatcher.setMaxRequestsPerHost(128);
    this.http = builder
        .followRedirects(false)
        .retryOnConnectionFailure(false)
        .dispatcher(dispatcher)
        .connectionPool(new ConnectionPool(128, 1, TimeUnit.MINUTES))
        .callTimeout(20, TimeUnit.SECONDS)
        .build();
  }

  OkHttpClient http() {
    return http;
  }

  /** A fresh random key, as a client mints one for a new intent (144 bits, base64url). */
  static String newKey() {
    byte[] bytes = new byte[18];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** {@code key} as {@code dialect} sends it: a quoted sf-string (IETF) or raw (Stripe). */
  static String wireKey(ServerDialect dialect, String key) {
    return dialect == ServerDialect.IETF ? "\"" + key + "\"" : key;
  }

  /** POSTs {@code json} with {@code Idempotency-Key: keyValue} (none when null). */
  Reply post(HttpUrl url, @Nullable String keyValue, String json) {
    return post(url, keyValue, RequestBody.create(json.getBytes(StandardCharsets.UTF_8), JSON));
  }

  /** POSTs {@code body} with {@code Idempotency-Key: keyValue} (none when null). */
  Reply post(HttpUrl url, @Nullable String keyValue, RequestBody body) {
    Request.Builder request = new Request.Builder().url(url).post(body);
    if (keyValue != null) {
      request.header("Idempotency-Key", keyValue);
    }
    return send(request.build());
  }

  Reply get(HttpUrl url) {
    return send(new Request.Builder().url(url).get().build());
  }

  Reply send(Request request) {
    try (Response response = http.newCall(request).execute()) {
      return new Reply(response.code(), response.headers(), response.body().bytes(),
          response.protocol());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * One answer as the client received it.
   *
   * @param status the status code
   * @param headers every header
   * @param body the exact body bytes
   * @param protocol the HTTP version it came over
   */
  record Reply(int status, Headers headers, byte[] body, Protocol protocol) {
    @Nullable String header(String name) {
      return headers.get(name);
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    /** Whether it carries {@code Idempotent-Replayed: true}. */
    boolean replayed() {
      return "true".equals(header("Idempotent-Replayed"));
    }

    @Override
    public String toString() {
      return status + " " + headers.toMultimap() + " " + text();
    }
  }
}
