package dev.oncely.spring.web;

import java.io.IOException;
import java.io.InputStream;
import okhttp3.Response;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/** An OkHttp {@link Response} as Spring's {@link ClientHttpResponse}; closing it closes the body. */
final class OncelyClientHttpResponse implements ClientHttpResponse {
  private final Response response;
  private final HttpHeaders headers = new HttpHeaders();

  OncelyClientHttpResponse(Response response) {
    this.response = response;
    for (String name : response.headers().names()) {
      headers.put(name, response.headers(name));
    }
  }

  @Override
  public HttpStatusCode getStatusCode() {
    return HttpStatusCode.valueOf(response.code());
  }

  @Override
  public String getStatusText() {
    return response.message();
  }

  @Override
  public HttpHeaders getHeaders() {
    return headers;
  }

  @Override
  public InputStream getBody() throws IOException {
    return response.body().byteStream();
  }

  @Override
  public void close() {
    response.close();
  }
}
