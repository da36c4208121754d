package dev.oncely.client.internal.http;

import dev.oncely.client.BodyTooLargeException;
import dev.oncely.client.InvalidIntentException;
import java.io.IOException;
import okhttp3.RequestBody;
import okio.Buffer;
import okio.BufferedSink;
import okio.Okio;
import okio.Sink;
import okio.Timeout;

/** Reads an intercepted call's body once, in bounded memory, before anything is stored or sent. */
final class BodyBuffer {
  private BodyBuffer() {}

  /**
   * The body's bytes, read in bounded memory: a body of unknown length is refused as soon as it
   * passes {@code maxBodyBytes}, and a duplex body (written while the answer streams) is refused
   * before it is read, because an intent needs its whole body before the first send.
   */
  static byte[] read(RequestBody body, long maxBodyBytes) throws IOException {
    if (body.isDuplex()) {
      throw new InvalidIntentException("body", "is duplex (written while the answer streams);"
          + " an intent stores its whole body before the first send: send a plain RequestBody");
    }
    long declared = body.contentLength();
    if (declared > maxBodyBytes) {
      throw new BodyTooLargeException(declared, maxBodyBytes);
    }
    BoundedSink sink = new BoundedSink(maxBodyBytes);
    try (BufferedSink buffered = Okio.buffer(sink)) {
      body.writeTo(buffered);
    }
    return sink.bytes();
  }

  /** Collects written bytes up to a limit and refuses the write that passes it. */
  private static final class BoundedSink implements Sink {
    private final Buffer collected = new Buffer();
    private final long limit;

    BoundedSink(long limit) {
      this.limit = limit;
    }

    @Override
    public void write(Buffer source, long byteCount) {
      if (collected.size() + byteCount > limit) {
        throw new BodyTooLargeException(collected.size() + byteCount, limit, true);
      }
      collected.write(source, byteCount);
    }

    byte[] bytes() {
      return collected.readByteArray();
    }

    @Override
    public void flush() {}

    @Override
    public Timeout timeout() {
      return Timeout.NONE;
    }

    @Override
    public void close() {}
  }
}
