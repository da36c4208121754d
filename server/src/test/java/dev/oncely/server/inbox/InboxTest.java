package dev.oncely.server.inbox;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InboxTest {
  private final IntentStore store = new InMemoryIntentStore();
  private final BlockingQueue<InboxEvent> events = new LinkedBlockingQueue<>();
  private Inbox inbox;

  @AfterEach
  void close() {
    if (inbox != null) {
      inbox.close();
    }
    store.close();
  }

  private InboxEvent next(InboxEvent.Kind kind) throws InterruptedException {
    while (true) {
      InboxEvent e = events.poll(10, TimeUnit.SECONDS);
      assertThat(e).describedAs("an event " + kind).isNotNull();
      if (e.kind() == kind) {
        return e;
      }
    }
  }

  @Test
  void an_accepted_message_is_handled_once_by_a_worker_and_a_duplicate_is_acknowledged_without_a_run()
      throws Exception {
    ConcurrentHashMap<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    inbox = Inbox.builder(store).listener(events::add)
        .handler("stripe", m -> runs.computeIfAbsent(m.messageId(), k -> new AtomicInteger())
            .incrementAndGet())
        .build();

    assertThat(inbox.accept("stripe", "evt_1", "charge.succeeded", "{}".getBytes(UTF_8),
        "application/json")).isEqualTo(Acceptance.ACCEPTED);
    next(InboxEvent.Kind.HANDLED);
    assertThat(inbox.accept("stripe", "evt_1", "charge.succeeded", "{}".getBytes(UTF_8),
        "application/json")).isEqualTo(Acceptance.DUPLICATE);

    InboxMessage m = inbox.get("stripe", "evt_1").orElseThrow();
    assertThat(m.state()).isEqualTo(InboxState.HANDLED);
    assertThat(m.type()).isEqualTo("charge.succeeded");
    assertThat(new String(m.payload(), UTF_8)).isEqualTo("{}");
    assertThat(runs.get("evt_1").get()).isEqualTo(1);
    assertThat(m.expiresAt()).isAfterOrEqualTo(m.updatedAt().plus(Inbox.DEFAULT_RETENTION));
  }

  @Test
  void a_failing_handler_is_retried_after_a_backoff_and_dead_lettered_after_the_limit()
      throws Exception {
    AtomicInteger runs = new AtomicInteger();
    inbox = Inbox.builder(store).listener(events::add).maxFailures(3)
        .backoff(Duration.ofMillis(10), Duration.ofMillis(20)).pollInterval(Duration.ofMillis(20))
        .handler("github", m -> {
          runs.incrementAndGet();
          throw new IllegalStateException("downstream is down");
        })
        .build();

    inbox.accept("github", "d-1", null, new byte[] {1, 2}, null);
    next(InboxEvent.Kind.DEAD_LETTERED);

    InboxMessage dead = inbox.get("github", "d-1").orElseThrow();
    assertThat(dead.state()).isEqualTo(InboxState.DEAD);
    assertThat(dead.failures()).isEqualTo(3);
    assertThat(dead.lastFailure()).isEqualTo("java.lang.IllegalStateException: downstream is down");
    assertThat(runs).hasValue(3);
    assertThat(inbox.listUnfinished()).extracting(InboxMessage::messageId).containsExactly("d-1");
    assertThat(inbox.purgeExpired(dead.expiresAt().plus(Duration.ofDays(30)), Duration.ofDays(1)))
        .describedAs("a dead message is never purged").isZero();
  }

  @Test
  void a_replayed_dead_message_runs_again_with_its_failures_reset_and_the_note_kept()
      throws Exception {
    AtomicInteger runs = new AtomicInteger();
    inbox = Inbox.builder(store).listener(events::add).maxFailures(1)
        .handler("queue", m -> {
          if (runs.incrementAndGet() == 1) {
            throw new IllegalStateException("first run fails");
          }
        })
        .build();
    inbox.accept("queue", "m-1", null, new byte[0], null);
    next(InboxEvent.Kind.DEAD_LETTERED);

    InboxMessage queued = inbox.replay("queue", "m-1", "ops", "downstream fixed");
    assertThat(queued.failures()).isZero();
    next(InboxEvent.Kind.HANDLED);

    InboxMessage handled = inbox.get("queue", "m-1").orElseThrow();
    assertThat(handled.state()).isEqualTo(InboxState.HANDLED);
    assertThat(handled.notes()).extracting(n -> n.text()).containsExactly("downstream fixed");
    assertThatThrownBy(() -> inbox.replay("queue", "m-1", "ops", "again"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("HANDLED");
  }

  @Test
  void once_runs_the_handler_on_the_callers_thread_and_a_redelivery_is_already_handled()
      throws Exception {
    inbox = Inbox.builder(store).workers(0).build();
    Thread caller = Thread.currentThread();
    AtomicInteger runs = new AtomicInteger();
    InboxHandler handler = m -> {
      assertThat(Thread.currentThread()).isSameAs(caller);
      runs.incrementAndGet();
    };

    assertThat(inbox.once("orders", "42", "a".getBytes(UTF_8), handler))
        .isEqualTo(Delivery.HANDLED);
    assertThat(inbox.once("orders", "42", "a".getBytes(UTF_8), handler))
        .isEqualTo(Delivery.ALREADY_HANDLED);
    assertThat(runs).hasValue(1);
  }

  @Test
  void once_throws_when_the_handler_fails_and_the_next_delivery_runs_it_again() throws Exception {
    inbox = Inbox.builder(store).workers(0).maxFailures(5).build();
    AtomicInteger runs = new AtomicInteger();
    InboxHandler flaky = m -> {
      if (runs.incrementAndGet() == 1) {
        throw new java.io.IOException("ledger unavailable");
      }
    };

    assertThatThrownBy(() -> inbox.once("jobs", "j-1", new byte[0], flaky))
        .isInstanceOfSatisfying(InboxDeliveryException.class, e -> {
          assertThat(e.busy()).isFalse();
          assertThat(e.getCause()).hasMessage("ledger unavailable");
        });
    assertThat(inbox.get("jobs", "j-1").orElseThrow().state()).isEqualTo(InboxState.QUEUED);

    assertThat(inbox.once("jobs", "j-1", new byte[0], flaky)).isEqualTo(Delivery.HANDLED);
    assertThat(runs).hasValue(2);
  }

  @Test
  void once_on_a_message_another_caller_holds_throws_busy_without_running() throws Exception {
    inbox = Inbox.builder(store).workers(0).build();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread first = new Thread(() -> {
      try {
        inbox.once("jobs", "j-2", new byte[0], m -> {
          inside.countDown();
          release.await();
        });
      } catch (InboxDeliveryException e) {
        throw new AssertionError(e);
      }
    });
    first.start();
    assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();

    assertThatThrownBy(() -> inbox.once("jobs", "j-2", new byte[0], m -> {
      throw new AssertionError("ran twice");
    })).isInstanceOfSatisfying(InboxDeliveryException.class, e -> assertThat(e.busy()).isTrue());

    release.countDown();
    first.join();
    assertThat(inbox.once("jobs", "j-2", new byte[0], m -> { }))
        .isEqualTo(Delivery.ALREADY_HANDLED);
  }

  @Test
  void messages_of_one_serial_key_never_run_at_the_same_time() throws Exception {
    AtomicInteger concurrent = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    CountDownLatch all = new CountDownLatch(20);
    inbox = Inbox.builder(store).workers(4)
        .serialKey("shop", m -> "customer-" + (Integer.parseInt(m.messageId()) % 2))
        .handler("shop", m -> {
          int now = concurrent.incrementAndGet();
          most.accumulateAndGet(now, Math::max);
          Thread.onSpinWait();
          concurrent.decrementAndGet();
          all.countDown();
        })
        .build();
    for (int i = 0; i < 20; i++) {
      inbox.accept("shop", Integer.toString(i), null, new byte[0], null);
    }
    assertThat(all.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(most.get()).describedAs("two keys, at most one run each").isLessThanOrEqualTo(2);
  }

  @Test
  void a_message_id_that_is_not_a_usable_key_is_kept_under_its_hash_and_read_back_as_given()
      throws Exception {
    inbox = Inbox.builder(store).workers(0).build();
    String id = "événement " + "x".repeat(300);
    inbox.accept("custom", id, null, new byte[] {7}, null);
    InboxMessage m = inbox.get("custom", id).orElseThrow();
    assertThat(m.messageId()).isEqualTo(id);
    assertThat(m.id().key()).startsWith("h:");
    assertThat(inbox.accept("custom", id, null, new byte[] {7}, null))
        .isEqualTo(Acceptance.DUPLICATE);
    assertThat(List.of(m.outboundKey("refund"))).allMatch(k -> k.equals(
        inbox.get("custom", id).orElseThrow().outboundKey("refund")));
  }
}
