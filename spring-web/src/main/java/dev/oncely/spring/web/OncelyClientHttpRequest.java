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
import okio.BufferedSink;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.StreamingHttpOutputMessage;
import org.springframework.http.client.AbstractStreamingClientHttpRequest;
import org.springframework.http.client.ClientHttpResponse;

/**
 * One call of {@link OncelyClientHttpRequestFactory}: the request becomes one OkHttp call carrying
 * the intent's {@link IntentTag} as an OkHttp tag. The body is streamed, not buffered here: Spring's
 * message converters write it when OkHttp (or, for an intent, the interceptor, which reads it once
 * in bounded memory and refuses it past its {@code maxBodyBytes}) asks for it. An
 * {@link IntentIOException} that carries an outcome (unknown, or needs reconciliation) leaves as
 * an {@link UnknownOutcomeException}; every other {@code IOException} as it is.
 */
final class OncelyClientHttpRequest extends AbstractStreamingClientHttpRequest {
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
  protected ClientHttpResponse executeInternal(HttpHeaders headers,
      StreamingHttpOutputMessage.@Nullable Body body) throws IOException {
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

  private @Nullable RequestBody body(HttpHeaders headers,
      StreamingHttpOutputMessage.@Nullable Body body) {
    String contentType = headers.getFirst(HttpHeaders.CONTENT_TYPE);
    MediaType type = contentType == null ? null : MediaType.parse(contentType);
    if (body == null) {
      return BODY_REQUIRED.contains(method.name()) ? RequestBody.create(new byte[0], type) : null;
    }
    long length = headers.getContentLength();
    return new RequestBody() {
      @Override
      public @Nullable MediaType contentType() {
        return type;
      }

      @Override
      public long contentLength() {
        return length;
      }

      @Override
      public boolean isOneShot() {
        return !body.repeatable();
      }

      @Override
      public void writeTo(BufferedSink sink) throws IOException {
        body.writeTo(sink.outputStream());
      }
    };
  }
}
