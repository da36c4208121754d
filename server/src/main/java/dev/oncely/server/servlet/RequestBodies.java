package dev.oncely.server.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import org.jspecify.annotations.Nullable;

/** Reads a request's body into memory within a limit, for the filter and the webhook servlet. */
final class RequestBodies {
  private RequestBodies() {}

  /** The body, or null if it is longer than {@code limit}. */
  static byte @Nullable [] read(HttpServletRequest request, long limit) throws IOException {
    long declared = request.getContentLengthLong();
    if (declared > limit) {
      return null;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(declared > 0 ? (int) declared : 256);
    byte[] chunk = new byte[8192];
    try (InputStream in = request.getInputStream()) {
      for (int n; (n = in.read(chunk)) != -1; ) {
        if (out.size() + (long) n > limit) {
          return null;
        }
        out.write(chunk, 0, n);
      }
    }
    return out.toByteArray();
  }
}
