package dev.oncely.postgres;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fast idempotent payments endpoint on loopback for {@link PostgresStoreMeasurement}, built like
 * the examples' reference server (JDK {@code HttpServer}, a cached handler pool, faults off): the
 * first {@code POST /payments} of a key creates a payment ({@code 201}), a repeat replays it.
 */
final class LoopbackPaymentsServer implements AutoCloseable {
  private final HttpServer http;
  private final ExecutorService handlers = Executors.newCachedThreadPool();
  private final Map<String, String> byKey = new ConcurrentHashMap<>();
  private final AtomicInteger payments = new AtomicInteger();

  LoopbackPaymentsServer() throws IOException {
    http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    http.setExecutor(handlers);
    http.createContext("/payments", this::pay);
    http.start();
  }

  String url() {
    return "http://127.0.0.1:" + http.getAddress().getPort() + "/payments";
  }

  private void pay(HttpExchange exchange) throws IOException {
    try (exchange) {
      exchange.getRequestBody().readAllBytes();
      String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
      if (key == null) {
        send(exchange, 400, "{\"error\":\"no key\"}", false);
        return;
      }
      String fresh = "{\"payment\":\"pay-" + (payments.get() + 1) + "\"}";
      String stored = byKey.putIfAbsent(key, fresh);
      if (stored == null) {
        payments.incrementAndGet();
      }
      send(exchange, 201, stored == null ? fresh : stored, stored != null);
    }
  }

  private static void send(HttpExchange exchange, int status, String body, boolean replay)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    if (replay) {
      exchange.getResponseHeaders().set("Idempotent-Replayed", "true");
    }
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  @Override
  public void close() {
    http.stop(0);
    handlers.shutdownNow();
  }
}
