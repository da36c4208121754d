package dev.oncely.testing;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import mockwebserver3.RecordedRequest;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import org.jspecify.annotations.Nullable;

/**
 * One request as the {@link IdempotentServer} received it, before any fault: its number, the
 * origin it reached, method, URL, every header and the body bytes. Immutable.
 *
 * @param number the server's request number, from 1 (polls included)
 * @param origin {@code scheme://host:port} of the server that received it; a kit server mounted on
 *     two MockWebServers tells them apart by this
 * @param method the request method
 * @param url the request URL as the server saw it
 * @param headers every request header, in order
 * @param body the body bytes (null or empty when there was none; {@link #body()} is never null)
 * @param receivedAt when it arrived, by the server's clock
 */
public record ReceivedRequest(int number, String origin, String method, HttpUrl url,
    Headers headers, byte @Nullable [] body, Instant receivedAt) {

  /** Validates and copies the body. */
  public ReceivedRequest {
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(headers, "headers");
    body = body == null ? new byte[0] : body.clone();
    Objects.requireNonNull(receivedAt, "receivedAt");
  }

  static ReceivedRequest of(int number, RecordedRequest r, Instant at) {
    HttpUrl url = r.getUrl();
    return new ReceivedRequest(number, originOf(url), r.getMethod(), url, r.getHeaders(),
        r.getBody() == null ? null : r.getBody().toByteArray(), at);
  }

  /** {@code scheme://host:port} of {@code url}, with the port always written. */
  public static String originOf(HttpUrl url) {
    return url.scheme() + "://" + url.host() + ":" + url.port();
  }

  /** A copy of the body bytes. */
  @Override
  public byte[] body() {
    return body.clone();
  }

  /** The body as UTF-8 text. */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  /** The first value of header {@code name} (case-insensitive), or null. */
  public @Nullable String header(String name) {
    return headers.get(name);
  }

  /** Every value of header {@code name} (case-insensitive), possibly empty. */
  public List<String> headerValues(String name) {
    return headers.values(name);
  }

  /** Whether this request carries header {@code name} (case-insensitive). */
  public boolean has(String name) {
    return headers.get(name) != null;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof ReceivedRequest r && r.number == number && r.origin.equals(origin)
        && r.method.equals(method) && r.url.equals(url) && r.headers.equals(headers)
        && java.util.Arrays.equals(r.body, body) && r.receivedAt.equals(receivedAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(number, origin, method, url);
  }

  /** Method, URL and header names only: values may be credentials. */
  @Override
  public String toString() {
    return "#" + number + " " + method + " " + url + " " + headers.names();
  }
}
