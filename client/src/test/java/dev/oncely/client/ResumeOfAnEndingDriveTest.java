package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A caller who asks for an intent once its drive has given up (the record is stored {@code
 * PENDING}, the {@code GaveUpUnknown} event is out) gets a drive of its own, not the outcome of
 * the drive that is ending: a resume, or a re-submit of the same spec, drives the intent again.
 * The drive is held at the moment in question by a listener or a store write that waits on a
 * latch, so the race a caller on another thread could lose is taken every time. Real OkHttp calls
 * against MockWebServer; the retry waits are a manual clock's.
 */
class ResumeOfAnEndingDriveTest {
  private static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  private static final RetryPolicy TWO_ATTEMPTS = RetryPolicy.builder().maxAttempts(2)
      .baseDelay(Duration.ofMillis(10)).attemptTimeout(Duration.ofSeconds(5))
      .deadline(Duration.ofMinutes(5)).build();

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  /** Until set, the server sheds every request with 503; then it creates the payment. */
  private final AtomicBoolean healed = new AtomicBoolean();
  /** Set by the drive's thread at the moment the test holds it. */
  private final CountDownLatch held = new CountDownLatch(1);
  /** Set by the test once it has asked for the intent again. */
  private final CountDownLatch asked = new CountDownLatch(1);
  private IdempotentClient client;

  @AfterEach
  void close() {
    asked.countDown();
    if (client != null) {
      client.close();
    }
  }

  private void shedUntilHealed() {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return healed.get() ? new MockResponse.Builder().code(201).body("{\"id\":\"pay\"}").build()
            : new MockResponse.Builder().code(503).build();
      }
    });
  }

  private IdempotentClient client(IntentStore store, IntentListener listener) {
    client = IdempotentClient.builder().store(store).listener(listener).clock(clock)
        .sleeper(new RecordingSleeper(clock)).retryPolicy(TWO_ATTEMPTS).build();
    return client;
  }

  private IntentSpec spec(String order) {
    return IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post(server.url("/payments").toString()).jsonBody("{\"order\":\"" + order + "\"}")
        .businessId(order).build();
  }

  /** Holds the drive's thread on its first {@code GaveUpUnknown} until the test has asked. */
  private IntentListener holdingTheGiveUp() {
    AtomicBoolean once = new AtomicBoolean();
    return event -> {
      if (event instanceof IntentEvent.GaveUpUnknown && once.compareAndSet(false, true)) {
        held.countDown();
        awaitAsked();
      }
    };
  }

  private void awaitAsked() {
    try {
      asked.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void assertGaveUp(CompletableFuture<IntentOutcome> first) throws Exception {
    assertThat(first.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(IntentOutcome.Pending.class,
        p -> assertThat(p.reason()).isEqualTo(PendingReason.ATTEMPTS_EXHAUSTED));
  }

  @Test
  void a_resume_asked_once_the_give_up_event_is_out_drives_the_intent_again() throws Exception {
    shedUntilHealed();
    InMemoryIntentStore store = new InMemoryIntentStore();
    IdempotentClient client = client(store, holdingTheGiveUp());
    IntentSpec spec = spec("order-1");

    CompletableFuture<IntentOutcome> first = client.submit(spec);
    assertThat(held.await(10, TimeUnit.SECONDS)).describedAs("the drive gave up").isTrue();
    assertThat(store.get(spec.id()).orElseThrow().state()).isEqualTo(IntentState.PENDING);
    healed.set(true);
    CompletableFuture<IntentOutcome> resumed = client.resume(spec.id());
    asked.countDown();

    assertGaveUp(first);
    assertThat(resumed.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(
        IntentOutcome.Completed.class, c -> assertThat(c.response().status()).isEqualTo(201));
    assertThat(server.getRequestCount()).describedAs("two attempts, then the resume's").isEqualTo(3);
    assertThat(store.get(spec.id()).orElseThrow().state()).isEqualTo(IntentState.COMPLETED);
  }

  @Test
  void a_resume_asked_once_the_store_shows_the_intent_pending_drives_it_again() throws Exception {
    shedUntilHealed();
    // The drive's thread is held right after its PENDING write, before its event and its end.
    AtomicBoolean once = new AtomicBoolean();
    IntentStore store = new ForwardingIntentStore(new InMemoryIntentStore()) {
      @Override
      public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
        boolean written = super.compareAndSet(expected, replacement);
        if (written && replacement.state() == IntentState.PENDING
            && once.compareAndSet(false, true)) {
          held.countDown();
          awaitAsked();
        }
        return written;
      }
    };
    IdempotentClient client = client(store, IntentListener.NONE);
    IntentSpec spec = spec("order-2");

    CompletableFuture<IntentOutcome> first = client.submit(spec);
    assertThat(held.await(10, TimeUnit.SECONDS)).describedAs("the drive parked").isTrue();
    healed.set(true);
    CompletableFuture<IntentOutcome> resumed = client.resume(spec.id());
    asked.countDown();

    assertGaveUp(first);
    assertThat(resumed.get(10, TimeUnit.SECONDS)).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  @Test
  void the_same_spec_submitted_again_once_the_drive_gave_up_is_driven_again() throws Exception {
    shedUntilHealed();
    IdempotentClient client = client(new InMemoryIntentStore(), holdingTheGiveUp());
    IntentSpec spec = spec("order-3");

    CompletableFuture<IntentOutcome> first = client.submit(spec);
    assertThat(held.await(10, TimeUnit.SECONDS)).describedAs("the drive gave up").isTrue();
    healed.set(true);
    CompletableFuture<IntentOutcome> again = client.submit(spec);
    asked.countDown();

    assertGaveUp(first);
    assertThat(again.get(10, TimeUnit.SECONDS)).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(server.getRequestCount()).isEqualTo(3);
  }
}
