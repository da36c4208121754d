package dev.oncely.server;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One request as an adapter (the Servlet filter, a test, another framework) hands it to {@link
 * IdempotentEndpoints}: method, path, headers, the exact body bytes and the authenticated
 * principal's name. Immutable; the body is never stored (only its fingerprint is).
 */
public final class InboundRequest {
  private final String method;
  private final String path;
  private final Map<String, List<String>> headers;
  private final byte[] body;
  private final @Nullable String principal;

  private InboundRequest(Builder b) {
    this.method = Objects.requireNonNull(b.method, "method");
    this.path = Objects.requireNonNull(b.path, "path");
    this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
    this.body = b.body;
    this.principal = b.principal;
  }

  /** A builder for a request with {@code method} to {@code path}. */
  public static Builder builder(String method, String path) {
    return new Builder(method, path);
  }

  /** The HTTP method. */
  public String method() {
    return method;
  }

  /** The request path, without the query. */
  public String path() {
    return path;
  }

  /** Every value of header {@code name} (any case), in order; empty if none. */
  public List<String> headers(String name) {
    List<String> out = new ArrayList<>();
    headers.forEach((n, v) -> {
      if (n.equalsIgnoreCase(name)) {
        out.addAll(v);
      }
    });
    return out;
  }

  /** The first value of header {@code name} (any case), or null. */
  public @Nullable String header(String name) {
    List<String> values = headers(name);
    return values.isEmpty() ? null : values.get(0);
  }

  /** The exact body bytes (not a copy: callers must not change them). */
  public byte[] body() {
    return body;
  }

  /** The authenticated principal's name, or null when the request is anonymous. */
  public @Nullable String principal() {
    return principal;
  }

  /** Describes the request without headers or body. */
  @Override
  public String toString() {
    return "InboundRequest{" + method + " " + path + ", " + body.length + " bytes}";
  }

  /** Builds {@link InboundRequest}s. Not thread-safe. */
  public static final class Builder {
    private final String method;
    private final String path;
    private final Map<String, List<String>> headers = new LinkedHashMap<>();
    private byte[] body = new byte[0];
    private @Nullable String principal;

    Builder(String method, String path) {
      this.method = Objects.requireNonNull(method, "method");
      this.path = Objects.requireNonNull(path, "path");
    }

    /** Adds one value of header {@code name}. */
    public Builder header(String name, String value) {
      headers.computeIfAbsent(Objects.requireNonNull(name, "name"), n -> new ArrayList<>())
          .add(Objects.requireNonNull(value, "value"));
      return this;
    }

    /** The exact body bytes (kept, not copied). */
    public Builder body(byte[] body) {
      this.body = Objects.requireNonNull(body, "body");
      return this;
    }

    /** The authenticated principal's name, or null. */
    public Builder principal(@Nullable String principal) {
      this.principal = principal;
      return this;
    }

    /** Returns the request. */
    public InboundRequest build() {
      return new InboundRequest(this);
    }
  }
}
