package dev.oncely.cli;

import dev.oncely.client.IntentStore;
import dev.oncely.persistence.StoreEngine;
import dev.oncely.server.inbox.Delivery;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Inbox messages as the server half's {@link Inbox} writes them, on a real store file, at a fixed
 * time {@link #T0}, by instance {@value #INSTANCE}: the inbox runs no workers, so every message
 * stays in the state the call left it in.
 */
final class InboxMessages implements AutoCloseable {
  static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  static final String INSTANCE = "shop-web-1";
  static final String PAYLOAD = "{\"id\":\"evt_1\",\"type\":\"charge.refunded\","
      + "\"customer\":\"cus_secret_address\"}";
  /** The lease of a message a {@code once} call holds. */
  static final Duration LEASE = Duration.ofSeconds(30);

  private final IntentStore store;
  private final Inbox inbox;
  private boolean closed;

  private InboxMessages(IntentStore store) {
    this.store = store;
    this.inbox = Inbox.builder(store).workers(0).maxFailures(1).lease(LEASE)
        .clock(Clock.fixed(T0, ZoneOffset.UTC)).instance(INSTANCE).build();
  }

  /** An inbox on the store file {@code file} of {@code engine}. */
  static InboxMessages open(StoreEngine engine, Path file) {
    return new InboxMessages(engine.open(file));
  }

  /** An inbox on {@code store}, which {@link #close()} closes. */
  static InboxMessages on(IntentStore store) {
    return new InboxMessages(store);
  }

  static byte[] payload() {
    return PAYLOAD.getBytes(StandardCharsets.UTF_8);
  }

  /** Stores a delivery of {@code source} as a webhook receiver does: QUEUED. */
  void accept(String source, String messageId, String type) {
    inbox.accept(source, messageId, type, payload(), "application/json");
  }

  /** A message whose handler finished: HANDLED. */
  void handled(String source, String messageId) throws Exception {
    Delivery d = inbox.once(source, messageId, payload(), m -> { });
    if (d != Delivery.HANDLED) {
      throw new IllegalStateException("expected HANDLED, was " + d);
    }
  }

  /**
   * A message whose handler threw as often as allowed (once): DEAD, its last failure an {@link
   * IllegalStateException} whose message quotes the payload.
   */
  void dead(String source, String messageId) throws Exception {
    Delivery d = inbox.once(source, messageId, payload(), m -> {
      throw new IllegalStateException("ledger refused customer cus_secret_address");
    });
    if (d != Delivery.DEAD_LETTERED) {
      throw new IllegalStateException("expected DEAD_LETTERED, was " + d);
    }
  }

  /** The message, as the inbox reads it. */
  InboxMessage get(String source, String messageId) {
    return inbox.get(source, messageId).orElseThrow();
  }

  /**
   * Leaves a message PROCESSING as a process that died in its handler does: the handler runs when
   * the store closes, so nothing after the take is written. Closes this inbox and its store.
   */
  void dieInHandler(String source, String messageId) throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    CompletableFuture<Void> delivery = CompletableFuture.runAsync(() -> {
      try {
        inbox.once(source, messageId, payload(), m -> {
          running.countDown();
          resume.await();
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
    delivery.get(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      inbox.close(Duration.ZERO);
      store.close();
    }
  }
}
