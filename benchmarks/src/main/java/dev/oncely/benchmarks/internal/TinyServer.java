package dev.oncely.benchmarks.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The cheapest server that still answers an idempotent POST the way a payments API does: the JDK's
 * {@link HttpServer} on loopback, HTTP/1.1 with keep-alive, {@code POST /payments} with an
 * {@code Idempotency-Key} header answered {@code 201} + a small JSON payment, without one
 * {@code 400}. It keeps no records (every key is new in the throughput runs), so the CPU it burns
 * per request is as small as the JDK allows and the ratio to plain OkHttp is about the client.
 *
 * <p>It knows its own threads ({@link #threadIds()}), so the harness can subtract their CPU time
 * and allocation from the process's and charge only the client. {@link #close()} stops it.
 */
public final class TinyServer implements AutoCloseable {
  private static final byte[] PAYMENT = ("{\"id\":\"pay_1\",\"status\":\"succeeded\","
      + "\"amount\":1000,\"currency\":\"JPY\"}").getBytes(StandardCharsets.UTF_8);
  private static final byte[] NO_KEY = "{\"error\":\"Idempotency-Key required\"}"
      .getBytes(StandardCharsets.UTF_8);
  private static final AtomicInteger SERVERS = new AtomicInteger();

  static {
    // The JDK server writes the status line and headers, then the body, in two writes: with Nagle
    // on, the second waits for the client's delayed ACK (~40 ms per answer on Linux loopback).
    // Read once, when the JDK's server configuration class loads.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  private final HttpServer server;
  private final ExecutorService workers;
  private final List<Thread> workerThreads = new CopyOnWriteArrayList<>();
  private final Set<Long> ownThreads = new HashSet<>();

  private TinyServer(int workerCount) {
    int n = SERVERS.incrementAndGet();
    AtomicInteger count = new AtomicInteger();
    this.workers = Executors.newFixedThreadPool(workerCount, r -> {
      Thread t = new Thread(r, "bench-server-" + n + "-" + count.incrementAndGet());
      t.setDaemon(true);
      workerThreads.add(t);
      return t;
    });
    Set<Long> before = liveThreadIds();
    try {
      this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
          1024);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind a loopback port", e);
    }
    server.setExecutor(workers);
    server.createContext("/payments", TinyServer::answer);
    server.start();
    for (long id : liveThreadIds()) {
      if (!before.contains(id)) {
        ownThreads.add(id);
      }
    }
    for (int i = 0; i < workerCount; i++) {
      workers.execute(() -> { });
    }
  }

  /** Starts a server with {@code workers} handler threads (plus the JDK's dispatcher). */
  public static TinyServer start(int workers) {
    return new TinyServer(workers);
  }

  /** {@code http://127.0.0.1:port/}. */
  public String baseUrl() {
    return "http://" + server.getAddress().getAddress().getHostAddress() + ":"
        + server.getAddress().getPort() + "/";
  }

  /**
   * Ids of the threads this server runs on: the dispatcher and timer threads the JDK started with
   * it, and its handler threads.
   */
  public Set<Long> threadIds() {
    Set<Long> ids = new HashSet<>(ownThreads);
    for (Thread t : workerThreads) {
      ids.add(t.getId());
    }
    return ids;
  }

  private static void answer(HttpExchange exchange) throws IOException {
    try (exchange; InputStream in = exchange.getRequestBody()) {
      in.transferTo(OutputStream.nullOutputStream());
      boolean keyed = "POST".equals(exchange.getRequestMethod())
          && exchange.getRequestHeaders().getFirst("Idempotency-Key") != null;
      byte[] body = keyed ? PAYMENT : NO_KEY;
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      if (keyed) {
        exchange.getResponseHeaders().set("Location", "/payments/pay_1");
      }
      exchange.sendResponseHeaders(keyed ? 201 : 400, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private static Set<Long> liveThreadIds() {
    Set<Long> ids = new HashSet<>();
    for (long id : ManagementFactory.getThreadMXBean().getAllThreadIds()) {
      ids.add(id);
    }
    return ids;
  }

  @Override
  public void close() {
    server.stop(0);
    workers.shutdownNow();
    try {
      workers.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
