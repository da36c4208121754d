package dev.oncely.server.inbox;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.server.internal.InboxRecords;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The hook a transactional handler ends its run through ({@link CompletingHandler}, {@link
 * InboxCompletion}): the inbox writes no completion of its own after the handler's, and counts a
 * failure when the handler's write failed or never happened. Here the "transaction" is the store's
 * own compare-and-set; {@code PostgresInboxTest} runs the real one.
 */
class InboxCompletionTest {
  private static final Instant T0 = Instant.parse("2026-12-01T09:00:00Z");
  private final ManualClock clock = new ManualClock(T0);
  private final WatchedStore store = new WatchedStore(new InMemoryIntentStore());
  private final Events events = new Events();
  private Inbox inbox;

  @AfterEach
  void close() {
    if (inbox != null) {
      inbox.close();
    }
    store.close();
  }

  /** A completing handler whose transaction is the store's compare-and-set. */
  private CompletingHandler writingThroughTheStore(AtomicInteger writes) {
    return (message, completion) -> completion.complete((expected, handled) -> {
      writes.incrementAndGet();
      return store.compareAndSet(InboxRecords.toRecord(expected), InboxRecords.toRecord(handled));
    });
  }

  private Inbox.Builder builder() {
    return Inbox.builder(store).clock(clock).listener(events).maxFailures(5)
        .backoff(Duration.ofSeconds(1), Duration.ofSeconds(1));
  }

  @Test
  void the_inbox_writes_no_completion_after_the_handlers_own() throws Exception {
    AtomicInteger writes = new AtomicInteger();
    inbox = builder().handler("stripe", writingThroughTheStore(writes)).build();

    inbox.accept("stripe", "evt_1", null, "{}".getBytes(UTF_8), null);
    events.await(InboxEvent.Kind.HANDLED, "stripe", "evt_1");
    inbox.close();

    InboxMessage handled = inbox.get("stripe", "evt_1").orElseThrow();
    assertThat(handled.state()).isEqualTo(InboxState.HANDLED);
    assertThat(handled.revision()).as("taken (1), then completed by the handler (2)").isEqualTo(2);
    assertThat(writes).hasValue(1);
    assertThat(store.compareAndSets()).as("the take and the handler's write, nothing refused")
        .isEqualTo(2);
    assertThat(events.count(InboxEvent.Kind.FENCED_OUT, "stripe", "evt_1")).isZero();
    assertThat(handled.expiresAt()).isEqualTo(T0.plus(Inbox.DEFAULT_RETENTION));
  }

  @Test
  void a_completing_handler_that_returns_without_its_completion_counts_a_failure()
      throws Exception {
    inbox = builder().handler("stripe", (CompletingHandler) (message, completion) -> { })
        .build();

    inbox.accept("stripe", "evt_2", null, new byte[0], null);
    events.await(InboxEvent.Kind.FAILED, "stripe", "evt_2");

    InboxMessage queued = inbox.get("stripe", "evt_2").orElseThrow();
    assertThat(queued.state()).isEqualTo(InboxState.QUEUED);
    assertThat(queued.failures()).isEqualTo(1);
    assertThat(queued.lastFailure()).contains("returned without writing its completion");
  }

  @Test
  void a_completion_whose_write_failed_counts_a_failure_even_when_the_handler_swallows_it()
      throws Exception {
    inbox = builder().handler("stripe", (CompletingHandler) (message, completion) -> {
      try {
        completion.complete((expected, handled) -> {
          throw new IOException("the commit failed");
        });
      } catch (IOException swallowed) {
        // A handler that hides its failed commit must not get the message marked handled.
      }
    }).build();

    inbox.accept("stripe", "evt_3", null, new byte[0], null);
    events.await(InboxEvent.Kind.FAILED, "stripe", "evt_3");

    InboxMessage queued = inbox.get("stripe", "evt_3").orElseThrow();
    assertThat(queued.state()).isEqualTo(InboxState.QUEUED);
    assertThat(queued.lastFailure()).isEqualTo("java.io.IOException: the commit failed");
  }

  @Test
  void a_second_completion_of_one_run_is_refused_and_the_first_stands() throws Exception {
    AtomicReference<Throwable> second = new AtomicReference<>();
    inbox = builder().workers(0).build();

    Delivery d = inbox.once("jobs", "j-1", new byte[0], (CompletingHandler) (m, completion) -> {
      InboxCompletion.Writer writer = (expected, handled) -> store.compareAndSet(
          InboxRecords.toRecord(expected), InboxRecords.toRecord(handled));
      assertThat(completion.complete(writer)).isTrue();
      try {
        completion.complete(writer);
      } catch (IllegalStateException e) {
        second.set(e);
      }
    });

    assertThat(d).isEqualTo(Delivery.HANDLED);
    assertThat(second.get()).hasMessageContaining("written already");
    assertThat(inbox.get("jobs", "j-1").orElseThrow().state()).isEqualTo(InboxState.HANDLED);
  }

  @Test
  void a_completing_handler_called_without_its_completion_refuses() {
    CompletingHandler h = (m, completion) -> { };
    assertThatThrownBy(() -> h.handle(null)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void once_with_a_completing_handler_is_handled_by_the_handlers_write_and_never_run_again()
      throws Exception {
    AtomicInteger writes = new AtomicInteger();
    inbox = builder().workers(0).build();

    assertThat(inbox.once("jobs", "j-2", new byte[0], writingThroughTheStore(writes)))
        .isEqualTo(Delivery.HANDLED);
    assertThat(inbox.once("jobs", "j-2", new byte[0], writingThroughTheStore(writes)))
        .isEqualTo(Delivery.ALREADY_HANDLED);
    assertThat(writes).hasValue(1);
    assertThat(inbox.get("jobs", "j-2").orElseThrow().revision()).isEqualTo(1);
  }
}
