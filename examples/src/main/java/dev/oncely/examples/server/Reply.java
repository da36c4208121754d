package dev.oncely.examples.server;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** One HTTP answer as the server stores and replays it: status, headers in order, body bytes. */
final class Reply {
  static final String JSON = "application/json";
  static final String PROBLEM_JSON = "application/problem+json";

  private final int status;
  private final Map<String, String> headers;
  private final byte[] body;

  private Reply(int status, Map<String, String> headers, byte[] body) {
    this.status = status;
    this.headers = Collections.unmodifiableMap(headers);
    this.body = body;
  }

  static Reply of(int status, String contentType, byte[] body) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Type", contentType);
    return new Reply(status, headers, body.clone());
  }

  Reply withHeader(String name, String value) {
    Map<String, String> copy = new LinkedHashMap<>(headers);
    copy.put(name, value);
    return new Reply(status, copy, body);
  }

  int status() {
    return status;
  }

  Map<String, String> headers() {
    return headers;
  }

  /** The body; callers must not modify it. */
  byte[] body() {
    return body;
  }
}
