package dev.oncely.benchmarks.internal;

import java.util.UUID;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/** The OkHttp setup every variant shares, and the plain keyed POST the SDK is compared with. */
public final class Http {
  private static final MediaType JSON = MediaType.get("application/json");

  private Http() {}

  /**
   * An OkHttp client whose pool keeps up to 256 idle loopback connections (so 64 threads never
   * reconnect) and which does not resend silently (the SDK turns that off too).
   */
  public static OkHttpClient client() {
    return new OkHttpClient.Builder()
        .connectionPool(new ConnectionPool(256, 5, TimeUnit.MINUTES))
        .retryOnConnectionFailure(false)
        .build();
  }

  /**
   * What an app does without the SDK: a random key in the header and one POST; true for a
   * {@code 201}.
   */
  public static boolean plainPost(OkHttpClient http, String url, String json) throws Exception {
    Request request = new Request.Builder()
        .url(url)
        .header("Idempotency-Key", "\"" + UUID.randomUUID() + "\"")
        .post(RequestBody.create(json, JSON))
        .build();
    try (Response response = http.newCall(request).execute()) {
      response.body().bytes();
      return response.code() == 201;
    }
  }

  /**
   * What an app does with the interceptor installed: one POST without a key header and without an
   * intent tag (the interceptor mints the key); true for a {@code 201}.
   */
  public static boolean untaggedPost(OkHttpClient http, String url, String json)
      throws Exception {
    Request request = new Request.Builder()
        .url(url)
        .post(RequestBody.create(json, JSON))
        .build();
    try (Response response = http.newCall(request).execute()) {
      response.body().bytes();
      return response.code() == 201;
    }
  }
}
