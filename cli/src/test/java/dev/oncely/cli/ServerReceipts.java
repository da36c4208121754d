package dev.oncely.cli;

import dev.oncely.client.IntentStore;
import dev.oncely.persistence.StoreEngine;
import dev.oncely.server.EndpointHandler;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.InboundRequest;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.ServerAnswer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Receipts as the server half writes them: {@link IdempotentEndpoints} serving requests on a real
 * store file, at a fixed time {@link #T0}, in scope {@value #SCOPE}, operation {@value
 * #OPERATION}.
 */
final class ServerReceipts implements AutoCloseable {
  static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  static final String SCOPE = "tenant-7";
  static final String OPERATION = "create-order";
  static final EndpointPolicy POLICY = EndpointPolicy.builder(OPERATION).build();
  static final String BODY = "{\"amount\":1200,\"card\":\"4242-secret\"}";

  private final ReceiptStore receipts;
  private final IdempotentEndpoints endpoints;
  private boolean closed;

  private ServerReceipts(IntentStore store) {
    this.receipts = ReceiptStore.on(store);
    this.endpoints = IdempotentEndpoints.builder(receipts).clock(Clock.fixed(T0, ZoneOffset.UTC))
        .instance("web-1").build();
  }

  /** Endpoints on {@code store}, which {@link #close()} closes. */
  static ServerReceipts on(IntentStore store) {
    return new ServerReceipts(store);
  }

  /** Endpoints on the store file {@code file} of {@code engine}. */
  static ServerReceipts open(StoreEngine engine, Path file) {
    return new ServerReceipts(engine.open(file));
  }

  /** The request a client sends with {@code key}. */
  static InboundRequest request(String key) {
    return InboundRequest.builder("POST", "/orders").header("Idempotency-Key", "\"" + key + "\"")
        .header("Content-Type", "application/json")
        .body(BODY.getBytes(StandardCharsets.UTF_8)).principal(SCOPE).build();
  }

  /** Serves the request with {@code key} through {@code handler}. */
  ServerAnswer send(String key, EndpointHandler handler) throws Exception {
    return endpoints.handle(request(key), POLICY, handler);
  }

  /** A request whose handler declared its outcome unknown: a PENDING receipt; its 202 answer. */
  ServerAnswer pending(String key, String reference) throws Exception {
    return send(key, context -> {
      context.pending(reference, "the provider did not answer within 10 s");
      return ServerAnswer.json(202, "{}");
    });
  }

  /** The receipt of {@code key}. */
  Receipt receipt(String key) {
    return receipts.get(dev.oncely.client.IntentId.of(SCOPE, OPERATION, key)).orElseThrow();
  }

  /**
   * Leaves the receipt of {@code key} PROCESSING as a process that died in its handler does: the
   * handler is running when the store closes, so nothing after the reservation is written. Closes
   * these endpoints and their store.
   */
  void dieInHandler(String key) throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    CompletableFuture<Void> request = CompletableFuture.runAsync(() -> {
      try {
        send(key, context -> {
          running.countDown();
          resume.await();
          return ServerAnswer.json(201, "{}");
        });
      } catch (Exception e) {
        // The store closed under the handler: the end is not recorded, as after a crash.
      }
    });
    if (!running.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the handler did not start");
    }
    close();
    resume.countDown();
    request.get(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      endpoints.close();
      receipts.close();
    }
  }
}
