package dev.oncely.server.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.spi.ForwardingIntentStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Closing the inbox while its dispatcher is at work: close returns only once the dispatcher's look
 * for due messages ended, so the store can be closed next; a message it took after the worker
 * pool closed goes back to the queue, due at once, with no failure counted, instead of sitting
 * under this closed instance's lease until it runs out.
 */
class InboxCloseTest {
  private final TakeGate store = new TakeGate();
  private final ClaimGate claims = new ClaimGate();

  @AfterEach
  void closeStores() {
    store.go.countDown();
    claims.go.countDown();
    store.close();
    claims.close();
  }

  /** Waits for {@code latch}, and keeps waiting when interrupted (the interrupt is kept). */
  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * A real in-memory store that, once armed, holds the dispatcher right after its take (the
   * compare-and-set to processing) until the test lets it go, and tells when it released its claim.
   */
  private static final class TakeGate extends ForwardingIntentStore {
    final CountDownLatch taken = new CountDownLatch(1);
    final CountDownLatch go = new CountDownLatch(1);
    final CountDownLatch released = new CountDownLatch(1);

    TakeGate() {
      super(new InMemoryIntentStore());
    }

    @Override
    public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
      boolean done = super.compareAndSet(expected, replacement);
      if (done && replacement.state() == IntentState.IN_FLIGHT && taken.getCount() > 0) {
        taken.countDown();
        awaitUninterruptibly(go);
      }
      return done;
    }

    @Override
    public void release(IntentId id) {
      super.release(id);
      released.countDown();
    }
  }

  /** A real in-memory store whose first claim holds the dispatcher until the test lets it go. */
  private static final class ClaimGate extends ForwardingIntentStore {
    final CountDownLatch claiming = new CountDownLatch(1);
    final CountDownLatch go = new CountDownLatch(1);
    volatile boolean claimReturned;

    ClaimGate() {
      super(new InMemoryIntentStore());
    }

    @Override
    public List<IntentRecord> claimDue(Instant now, int limit) {
      List<IntentRecord> due = super.claimDue(now, limit);
      if (claiming.getCount() > 0 && !due.isEmpty()) {
        claiming.countDown();
        awaitUninterruptibly(go);
        claimReturned = true;
      }
      return due;
    }
  }

  @Test
  void close_returns_only_after_the_dispatchers_look_under_way_ended_so_the_store_can_be_closed()
      throws Exception {
    Inbox inbox = Inbox.builder(claims).handler("queue", m -> { }).build();
    inbox.accept("queue", "m-1", null, new byte[] {1}, null);
    assertThat(claims.claiming.await(10, TimeUnit.SECONDS)).isTrue();
    Thread closer = Thread.currentThread();
    // Lets the dispatcher go once this thread waits (inside close, when close waits for it).
    Thread release = new Thread(() -> {
      while (closer.getState() != Thread.State.WAITING
          && closer.getState() != Thread.State.TIMED_WAITING) {
        Thread.onSpinWait();
      }
      claims.go.countDown();
    });
    release.setDaemon(true);
    release.start();

    inbox.close(Duration.ofSeconds(10));

    assertThat(claims.claimReturned).describedAs("the claim under way ended before close returned")
        .isTrue();
  }

  @Test
  void a_message_taken_while_the_inbox_closes_goes_back_to_the_queue_due_now_without_a_failure()
      throws Exception {
    AtomicInteger runs = new AtomicInteger();
    Inbox inbox = Inbox.builder(store).handler("queue", m -> runs.incrementAndGet()).build();
    inbox.accept("queue", "m-1", null, new byte[] {1}, null);
    assertThat(store.taken.await(10, TimeUnit.SECONDS)).describedAs("the dispatcher took it")
        .isTrue();

    inbox.close(Duration.ZERO);
    store.go.countDown();
    assertThat(store.released.await(10, TimeUnit.SECONDS)).describedAs("the claim ended")
        .isTrue();

    InboxMessage m = inbox.get("queue", "m-1").orElseThrow();
    assertThat(m.state()).isEqualTo(InboxState.QUEUED);
    assertThat(m.failures()).isZero();
    assertThat(m.dueAt()).isBeforeOrEqualTo(Instant.now());
    assertThat(runs).hasValue(0);
  }
}
