package dev.oncely.server.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.spi.ForwardingIntentStore;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Closing the inbox while its dispatcher is taking a message: the worker pool no longer accepts
 * runs, so the message it took goes back to the queue, due at once, with no failure counted,
 * instead of sitting under this closed instance's lease until it runs out.
 */
class InboxCloseTest {
  private final TakeGate store = new TakeGate();

  @AfterEach
  void closeStore() {
    store.close();
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
        // Uninterruptibly: close() interrupts the dispatcher, which must still go on from here.
        boolean interrupted = false;
        while (true) {
          try {
            go.await();
            break;
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
      return done;
    }

    @Override
    public void release(IntentId id) {
      super.release(id);
      released.countDown();
    }
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
