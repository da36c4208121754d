package dev.oncely.client.internal.http;

import dev.oncely.client.StoredResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

/** Conversions between OkHttp values and the stored forms. */
public final class HttpParts {
  /** The JSON type {@code IntentSpec.jsonBody} sets, parsed once instead of on every attempt. */
  private static final String JSON_TYPE = "application/json; charset=utf-8";
  private static final MediaType JSON = MediaType.get(JSON_TYPE);
  /** The header that names the coding of the stored body bytes; resent with them on every submit. */
  private HttpParts() {}

  /**
   * A request body of exactly {@code bytes}, or null where the method takes none and none is set.
   * The body is {@linkplain #attemptOnly one-shot} for the HTTP client.
   */
  public static RequestBody body(String method, byte[] bytes, String mediaType,
      WireWrites writes) {
    if (bodyless(method, bytes.length, mediaType)) {
      return null;
    }
    return attemptOnly(bytes, mediaType == null ? null : mediaType(mediaType), writes);
  }

  /**
   * Whether an intent of {@code method} with a body of {@code length} bytes of {@code mediaType}
   * (null: none) is sent without a body: a GET or HEAD, or an empty DELETE or OPTIONS without a
   * type. Such a request has no body write to count: the network half counts it.
   */
  public static boolean bodyless(String method, long length, String mediaType) {
    return method.equals("GET") || method.equals("HEAD") || (length == 0 && mediaType == null
        && (method.equals("DELETE") || method.equals("OPTIONS")));
  }

  private static MediaType mediaType(String mediaType) {
    return mediaType.equals(JSON_TYPE) ? JSON : MediaType.parse(mediaType);
  }

  /**
   * A body of {@code bytes} that tells OkHttp it is one-shot, so OkHttp never sends it again on its
   * own: no silent retry after the request was written (retryOnConnectionFailure) and no 307/308
   * follow-up. Every resend of an intent is then the engine's, counted, paced and judged as a
   * repeat delivery. The engine itself may write the same bytes again in a later attempt. Every
   * write that starts is counted in {@code writes}, whoever starts it.
   */
  public static RequestBody attemptOnly(byte[] bytes, MediaType type, WireWrites writes) {
    RequestBody bytesBody = RequestBody.create(bytes, type);
    return new RequestBody() {
      @Override
      public MediaType contentType() {
        return bytesBody.contentType();
      }

      @Override
      public long contentLength() throws IOException {
        return bytesBody.contentLength();
      }

      @Override
      public boolean isOneShot() {
        return true;
      }

      @Override
      public void writeTo(okio.BufferedSink sink) throws IOException {
        writes.started();
        bytesBody.writeTo(sink);
      }
    };
  }

  /** Headers as a map in arrival order, names as the server sent them. */
  public static Map<String, List<String>> toMap(Headers headers) {
    Map<String, List<String>> map = new LinkedHashMap<>();
    for (int i = 0; i < headers.size(); i++) {
      String name = headers.name(i);
      List<String> values = map.get(name);
      if (values == null) {
        for (Map.Entry<String, List<String>> e : map.entrySet()) {
          if (e.getKey().equalsIgnoreCase(name)) {
            values = e.getValue();
            break;
          }
        }
      }
      if (values == null) {
        values = new ArrayList<>(1);
        map.put(name, values);
      }
      values.add(headers.value(i));
    }
    return map;
  }

  /**
   * Reads {@code response} into a stored response, keeping at most {@code maxBodyBytes} of the body.
   * Does not close the response.
   */
  public static StoredResponse read(Response response, long maxBodyBytes) throws IOException {
    byte[] body = response.peekBody(maxBodyBytes).bytes();
    return StoredResponse.of(response.code(), toMap(response.headers()), body);
  }

  /**
   * A live response built from a stored one for {@code request}, with header {@code marker: true}
   * so the app can tell it came from the store.
   */
  public static Response toResponse(Request request, StoredResponse stored, String marker) {
    Headers.Builder headers = new Headers.Builder();
    stored.headers().forEach((name, values) -> values.forEach(v -> headers.addUnsafeNonAscii(name, v)));
    headers.set(marker, "true");
    String contentType = stored.header("Content-Type");
    return new Response.Builder()
        .request(request)
        .protocol(Protocol.HTTP_1_1)
        .code(stored.status())
        .message("")
        .headers(headers.build())
        .body(ResponseBody.create(stored.body(),
            contentType == null ? null : MediaType.parse(contentType)))
        .build();
  }

  /**
   * The absolute status URL of a {@code 202}: {@code Location}, else {@code Content-Location},
   * resolved against {@code base}; null when neither is usable.
   */
  public static String pollUrl(StoredResponse response, HttpUrl base) {
    for (String name : new String[] {"Location", "Content-Location"}) {
      String value = response.header(name);
      if (value != null && !value.isBlank()) {
        HttpUrl resolved = base.resolve(value.trim());
        if (resolved != null) {
          return resolved.toString();
        }
      }
    }
    return null;
  }
}
