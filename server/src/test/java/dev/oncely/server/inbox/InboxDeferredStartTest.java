package dev.oncely.server.inbox;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.ForwardingIntentStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An inbox built with {@code deferStart()} stores deliveries and serves {@code once} callers (with
 * their leases renewed) but takes no due message until {@code start()}: what a container needs
 * when it builds the inbox before the handlers' objects exist.
 */
class InboxDeferredStartTest {
  private final AtomicInteger claims = new AtomicInteger();
  private final CountDownLatch renewed = new CountDownLatch(1);
  private final IntentStore store = new ForwardingIntentStore(new InMemoryIntentStore()) {
    @Override
    public List<IntentRecord> claimDue(Instant now, int limit) {
      claims.incrementAndGet();
      return super.claimDue(now, limit);
    }

    @Override
    public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
      boolean written = super.compareAndSet(expected, replacement);
      if (written && expected.state() == IntentState.IN_FLIGHT
          && replacement.state() == IntentState.IN_FLIGHT) {
        renewed.countDown();
      }
      return written;
    }
  };
  private final BlockingQueue<InboxEvent> events = new LinkedBlockingQueue<>();
  private Inbox inbox;

  @AfterEach
  void close() {
    if (inbox != null) {
      inbox.close();
    }
    store.close();
  }

  @Test
  void a_deferred_inbox_takes_no_message_until_it_is_started_and_then_runs_what_waited()
      throws Exception {
    inbox = Inbox.builder(store).listener(events::add).lease(Duration.ofSeconds(1)).deferStart()
        .handler("stripe", m -> { })
        .build();
    inbox.accept("stripe", "evt_1", null, "{}".getBytes(UTF_8), null);
    inbox.pollNow();

    // The dispatcher thread runs its tasks in time order: once a lease renewal (a sweep that
    // first runs a sixth of the lease after the build) has run on it, anything the build or the
    // accept scheduled there at once has run before.
    inbox.once("queue", "m-1", new byte[0], m ->
        assertThat(renewed.await(10, TimeUnit.SECONDS)).describedAs("a lease renewal").isTrue());
    assertThat(claims).describedAs("due messages taken before the start").hasValue(0);
    assertThat(inbox.get("stripe", "evt_1").orElseThrow().state()).isEqualTo(InboxState.QUEUED);

    inbox.start();
    inbox.start();

    while (true) {
      InboxEvent e = events.poll(10, TimeUnit.SECONDS);
      assertThat(e).describedAs("the waiting message handled").isNotNull();
      if (e.kind() == InboxEvent.Kind.HANDLED && e.source().equals("stripe")) {
        break;
      }
    }
    assertThat(inbox.get("stripe", "evt_1").orElseThrow().state())
        .isEqualTo(InboxState.HANDLED);
  }

  @Test
  void start_after_close_starts_nothing() {
    inbox = Inbox.builder(store).deferStart().handler("stripe", m -> { }).build();
    inbox.close();
    inbox.start();
    assertThat(claims).hasValue(0);
  }
}
