package dev.oncely.spring.web;

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
 * request becomes one OkHttp call carrying the intent's {@link IntentTag} as an OkHttp tag.
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
    Response response = client.newCall(request.build()).execute();
    return new OncelyClientHttpResponse(response);
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
