package dev.oncely.cli.internal.conformance;

import dev.oncely.client.dialect.Dialect;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.Buffer;
import okio.BufferedSource;

/**
 * Sends probe requests: the method, URL and body under test, the key in the dialect's header and
 * form, and the operator's extra headers (never printed). No retries, no redirects.
 */
final class ProbeClient implements AutoCloseable {
  private static final MediaType JSON = MediaType.get("application/json");
  private static final int MAX_BODY = 256 * 1024;

  private final OkHttpClient http;
  private final String method;
  private final Dialect dialect;
  private final Map<String, String> headers;
  private final AtomicInteger sent = new AtomicInteger();

  ProbeClient(String method, Dialect dialect, Map<String, String> headers, Duration timeout) {
    this.http = new OkHttpClient.Builder()
        .retryOnConnectionFailure(false)
        .followRedirects(false)
        .callTimeout(timeout)
        .build();
    this.method = method;
    this.dialect = dialect;
    this.headers = Map.copyOf(headers);
  }

  Answer send(String url, String key, byte[] body) {
    return send(url, key, body, Map.of());
  }

  Answer send(String url, String key, byte[] body, Map<String, String> extra) {
    Request.Builder request = new Request.Builder()
        .url(url)
        .method(method, RequestBody.create(body, JSON))
        .header(dialect.keyHeader(), dialect.formatKey(key));
    headers.forEach(request::header);
    extra.forEach(request::header);
    sent.incrementAndGet();
    try (Response response = http.newCall(request.build()).execute()) {
      Map<String, List<String>> h = new LinkedHashMap<>();
      for (String name : response.headers().names()) {
        h.put(name.toLowerCase(Locale.ROOT), response.headers(name));
      }
      BufferedSource source = response.body().source();
      source.request(MAX_BODY);
      Buffer buffer = source.getBuffer();
      byte[] bytes = buffer.readByteArray(Math.min(buffer.size(), MAX_BODY));
      return new Answer(response.code(), h, bytes, null);
    } catch (IOException | RuntimeException e) {
      return Answer.failed(e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }
  }

  /** How many requests were sent. */
  int sent() {
    return sent.get();
  }

  @Override
  public void close() {
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }
}
