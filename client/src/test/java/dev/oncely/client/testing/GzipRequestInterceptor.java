package dev.oncely.client.testing;

import java.io.IOException;
import java.util.zip.Deflater;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import okio.GzipSink;
import okio.Okio;

/**
 * OkHttp's own recipe for compressed request bodies ({@code GzipRequestInterceptor}), as an app puts
 * it before the SDK: a request with a body and no {@code Content-Encoding} gets {@code
 * Content-Encoding: gzip} and its body gzipped while it is written, with no declared length. A
 * request that already declares a coding (a resume of a stored record) passes unchanged. The
 * compression level is the one thing an app upgrade may change; gzip output at one level is the
 * same bytes every time (Okio writes no time stamp).
 */
public final class GzipRequestInterceptor implements Interceptor {
  private final int level;

  /** The recipe as published: the deflater's default level. */
  public GzipRequestInterceptor() {
    this(Deflater.DEFAULT_COMPRESSION);
  }

  /** The recipe at another compression level ({@link Deflater#BEST_SPEED} to {@code BEST_COMPRESSION}). */
  public GzipRequestInterceptor(int level) {
    this.level = level;
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    Request original = chain.request();
    if (original.body() == null || original.header("Content-Encoding") != null) {
      return chain.proceed(original);
    }
    Request compressed = original.newBuilder()
        .header("Content-Encoding", "gzip")
        .method(original.method(), gzip(original.body(), level))
        .build();
    return chain.proceed(compressed);
  }

  /** {@code body} gzipped while it is written, at {@code level}. */
  public static RequestBody gzip(RequestBody body, int level) {
    return new RequestBody() {
      @Override
      public MediaType contentType() {
        return body.contentType();
      }

      @Override
      public long contentLength() {
        return -1;
      }

      @Override
      public void writeTo(BufferedSink sink) throws IOException {
        GzipSink gzip = new GzipSink(sink);
        gzip.deflater().setLevel(level);
        try (BufferedSink gzipSink = Okio.buffer(gzip)) {
          body.writeTo(gzipSink);
        }
      }
    };
  }

  /** The gzip bytes of {@code bytes} at {@code level}, as this interceptor writes them. */
  public static byte[] gzip(byte[] bytes, int level) {
    okio.Buffer out = new okio.Buffer();
    try {
      gzip(RequestBody.create(bytes, null), level).writeTo(out);
    } catch (IOException e) {
      throw new IllegalStateException("a buffer does not fail", e);
    }
    return out.readByteArray();
  }
}
