package dev.oncely.examples.server;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;

/** Writes a {@link Reply} to an exchange and completes it. */
final class Exchanges {
  private Exchanges() {}

  static void send(HttpExchange ex, Reply reply) throws IOException {
    reply.headers().forEach((name, value) -> ex.getResponseHeaders().set(name, value));
    byte[] body = reply.body();
    ex.sendResponseHeaders(reply.status(), body.length == 0 ? -1 : body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }
}
