package dev.oncely.client.property;

import dev.oncely.client.BodyTooLargeException;
import dev.oncely.client.InvalidIntentException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.Request;
import okhttp3.RequestBody;
import okio.BufferedSink;

/**
 * The request an app builds for the intent: every shape OkHttp lets it build. Each call
 * of {@link #request} builds a new body, as an app that re-issues its call does (a multipart form
 * gets a new random boundary, a one-shot body or stream a new source). A bodyless shape names the
 * intent in its path, a shape with a body in its JSON ({@code "order"}), so the server's ledger
 * tells the intent's effects apart either way.
 */
enum RequestShape {
  /** {@code POST /payments} with a JSON body of known length. */
  JSON_POST("POST", SimulatedWorld.PAYMENTS),
  /** {@code DELETE /payments/order-1}, no body: void the authorization. */
  DELETE("DELETE", SimulatedWorld.PAYMENTS + "/" + SimulatedWorld.INTENT),
  /** {@code PATCH /payments} with a JSON body. */
  PATCH_JSON("PATCH", SimulatedWorld.PAYMENTS),
  /** {@code POST /payments/order-1/capture} with an empty body. */
  EMPTY_POST("POST", SimulatedWorld.PAYMENTS + "/" + SimulatedWorld.INTENT + "/capture"),
  /** A JSON body that can be written once ({@code isOneShot()}). */
  ONE_SHOT("POST", SimulatedWorld.PAYMENTS),
  /** A JSON body streamed without a declared length, within the interceptor's limit. */
  STREAM("POST", SimulatedWorld.PAYMENTS),
  /** A stream without a declared length past the interceptor's limit: refused. */
  STREAM_PAST_LIMIT("POST", SimulatedWorld.PAYMENTS),
  /** A multipart form: the payment as a JSON part and a text part. */
  MULTIPART("POST", SimulatedWorld.PAYMENTS),
  /** A duplex body, which cannot be held before it is sent: refused. */
  DUPLEX("POST", SimulatedWorld.PAYMENTS),
  /**
   * A JSON body the app gzips with OkHttp's recipe before the SDK ({@link #compressedByApp()}):
   * {@code Content-Encoding: gzip}; after a restart the app compresses at another level.
   */
  GZIP_JSON("POST", SimulatedWorld.PAYMENTS),
  /**
   * Bytes in a content coding the SDK does not decode ({@code Content-Encoding: br}): an intent of
   * its exact bytes. They end in the intent's JSON, so the test server, which does not decode
   * them either, can tell whose effect they are.
   */
  OPAQUE_CODING("POST", SimulatedWorld.PAYMENTS);

  /** The interceptor's body limit in the property test: a stream past it is small enough to be quick. */
  static final long MAX_BODY_BYTES = 16 * 1024;
  private static final MediaType JSON = MediaType.get("application/json");
  private static final MediaType OCTETS = MediaType.get("application/octet-stream");
  /** Bytes no JSON parser and no gzip decoder reads, before the intent's JSON. */
  private static final byte[] BROTLI_PREFIX = {(byte) 0x8b, 0x0f, (byte) 0x80};

  private final String method;
  private final String path;

  RequestShape(String method, String path) {
    this.method = method;
    this.path = path;
  }

  /** The path the intent is sent to; a same-origin redirect keeps it as its prefix. */
  String path() {
    return path;
  }

  /** Whether the app's client compresses the body ({@code GzipRequestInterceptor}). */
  boolean compressedByApp() {
    return this == GZIP_JSON;
  }

  /** Whether the interceptor must refuse it before anything is stored or sent. */
  boolean refused() {
    return this == STREAM_PAST_LIMIT || this == DUPLEX;
  }

  /** The cause of the {@code IntentIOException} a {@linkplain #refused() refused} shape gets. */
  Class<? extends InvalidIntentException> refusal() {
    return this == STREAM_PAST_LIMIT ? BodyTooLargeException.class : InvalidIntentException.class;
  }

  /** A new request of this shape at {@code origin} (its path replaced by {@link #path()}). */
  Request.Builder request(HttpUrl origin) {
    Request.Builder b = new Request.Builder().url(origin.resolve(path));
    if (this == OPAQUE_CODING) {
      b.header("Content-Encoding", "br");
    }
    return method.equals("DELETE") ? b.delete() : b.method(method, body());
  }

  private RequestBody body() {
    switch (this) {
      case EMPTY_POST:
        return RequestBody.create(new byte[0], null);
      case ONE_SHOT:
        return new Streamed(JSON, SimulatedWorld.BODY.length(), true, false, 1);
      case STREAM:
        return new Streamed(JSON, -1, false, false, 1);
      case STREAM_PAST_LIMIT:
        return new Streamed(OCTETS, -1, false, false,
            (int) (4 * MAX_BODY_BYTES / SimulatedWorld.BODY.length()));
      case DUPLEX:
        return new Streamed(JSON, -1, false, true, 1);
      case OPAQUE_CODING:
        byte[] json = SimulatedWorld.BODY.getBytes(StandardCharsets.UTF_8);
        byte[] opaque = Arrays.copyOf(BROTLI_PREFIX, BROTLI_PREFIX.length + json.length);
        System.arraycopy(json, 0, opaque, BROTLI_PREFIX.length, json.length);
        return RequestBody.create(opaque, JSON);
      case MULTIPART:
        return new MultipartBody.Builder().setType(MultipartBody.FORM)
            .addFormDataPart("payment", null, RequestBody.create(SimulatedWorld.BODY, JSON))
            .addFormDataPart("note", "first order of the day").build();
      default:
        return RequestBody.create(SimulatedWorld.BODY, JSON);
    }
  }

  /** A body written from code: the intent's JSON, {@code copies} times. */
  private static final class Streamed extends RequestBody {
    private final MediaType type;
    private final long length;
    private final boolean oneShot;
    private final boolean duplex;
    private final int copies;

    Streamed(MediaType type, long length, boolean oneShot, boolean duplex, int copies) {
      this.type = type;
      this.length = length;
      this.oneShot = oneShot;
      this.duplex = duplex;
      this.copies = copies;
    }

    @Override
    public MediaType contentType() {
      return type;
    }

    @Override
    public long contentLength() {
      return length;
    }

    @Override
    public boolean isOneShot() {
      return oneShot;
    }

    @Override
    public boolean isDuplex() {
      return duplex;
    }

    @Override
    public void writeTo(BufferedSink sink) throws IOException {
      for (int i = 0; i < copies; i++) {
        sink.writeUtf8(SimulatedWorld.BODY);
      }
    }
  }
}
