package dev.oncely.spring.web;

import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentTag;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.AbstractBufferingClientHttpRequest;
import org.springframework.http.client.ClientHttpResponse;

/**
 * One call of {@link OncelyClientHttpRequestFactory}: Spring buffers the body, then the whole
 * request becomes one OkHttp call carrying the intent's {@link IntentTag} as an OkHttp tag. An
 * {@link IntentIOException} that carries an outcome (unknown, or needs reconciliation) leaves as
 * an {@link UnknownOutcomeException}; every other {@code IOException} as it is.
 */
final class OncelyClientHttpRequest extends AbstractBufferingClientHttpRequest {
  /** Methods OkHttp refuses without a body. */
  private static final Set<String> BODY_REQUIRED = Set.of("POST", "PUT", "PATCH", "PROPPATCH",
      "REPORT");
  /** Headers OkHttp computes itself from the body and the URL. */
  private static final Set<String> OKHTTP_OWNED = Set.of("content-length", "host",
      "transfer-encoding");

  private final OkHttpClient client;
  private final URI uri;
  private final HttpMethod method;

  OncelyClientHttpRequest(OkHttpClient client, URI uri, HttpMethod method) {
    this.client = client;
    this.uri = uri;
    this.method = method;
  }

  @Override
  public HttpMethod getMethod() {
    return method;
  }

  @Override
  public URI getURI() {
    return uri;
  }

  @Override
  protected ClientHttpResponse executeInternal(HttpHeaders headers, byte[] body)
      throws IOException {
    Request.Builder request = new Request.Builder().url(uri.toURL());
    for (Map.Entry<String, List<String>> header : headers.headerSet()) {
      if (OKHTTP_OWNED.contains(header.getKey().toLowerCase(java.util.Locale.ROOT))) {
        continue;
      }
      for (String value : header.getValue()) {
        request.addHeader(header.getKey(), value);
      }
    }
    request.method(method.name(), body(headers, body));
    IntentTag tag = IntentAttributes.tagIn(getAttributes());
    if (tag != null) {
      request.tag(IntentTag.class, tag);
    }
    Response response;
    try {
      response = client.newCall(request.build()).execute();
    } catch (IntentIOException e) {
      if (e.outcome().isPresent()) {
        // Thrown as it is: RestClient and RestTemplate wrap only IOExceptions.
        throw new UnknownOutcomeException(method.name() + " " + withoutQuery(), e);
      }
      throw e;
    }
    return new OncelyClientHttpResponse(response);
  }

  /** The URL without user info, query or fragment: no secret reaches an exception message. */
  private String withoutQuery() {
    StringBuilder out = new StringBuilder();
    if (uri.getScheme() != null) {
      out.append(uri.getScheme()).append("://");
    }
    if (uri.getHost() != null) {
      out.append(uri.getHost());
      if (uri.getPort() != -1) {
        out.append(':').append(uri.getPort());
      }
    }
    if (uri.getRawPath() != null) {
      out.append(uri.getRawPath());
    }
    return out.toString();
  }

  private @Nullable RequestBody body(HttpHeaders headers, byte[] body) {
    String name = method.name();
    if (body.length == 0 && !BODY_REQUIRED.contains(name)) {
      return null;
    }
    String contentType = headers.getFirst(HttpHeaders.CONTENT_TYPE);
    return RequestBody.create(body, contentType == null ? null : MediaType.parse(contentType));
  }
}
