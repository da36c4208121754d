package dev.oncely.testing;

import java.nio.charset.StandardCharsets;
import mockwebserver3.MockResponse;
import okhttp3.Headers;

/** One answer as the server stores and replays it: status, headers, body bytes, and its kind. */
record Answer(int status, Headers headers, byte[] body, ServedAnswer.Kind kind) {
  static Answer json(int status, String json) {
    return of(status, "application/json", json);
  }

  static Answer of(int status, String contentType, String body) {
    return new Answer(status, Headers.of("Content-Type", contentType),
        body.getBytes(StandardCharsets.UTF_8), ServedAnswer.Kind.OTHER);
  }

  Answer as(ServedAnswer.Kind k) {
    return new Answer(status, headers, body, k);
  }

  Answer with(String name, String value) {
    return new Answer(status, headers.newBuilder().set(name, value).build(), body, kind);
  }

  Answer withStatus(int code) {
    return new Answer(code, headers, body, kind);
  }

  Answer without(String name) {
    return new Answer(status, headers.newBuilder().removeAll(name).build(), body, kind);
  }

  MockResponse.Builder toResponse() {
    MockResponse.Builder b = new MockResponse.Builder().code(status).headers(headers);
    if (body.length > 0) {
      b.body(new okio.Buffer().write(body));
    }
    return b;
  }
}
