package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.spi.IntentStoreContract;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The due-work scheduler on the in-memory store: the default claim works for every store. */
class DueWorkSchedulerTest {
  private final MockWebServer server = new MockWebServer();
  private InMemoryIntentStore store;
  private IdempotentClient client;

  @BeforeEach
  void start() throws Exception {
    server.start();
    store = new InMemoryIntentStore();
    client = IdempotentClient.builder().store(store)
        .retryPolicy(RetryPolicy.builder().maxAttempts(1).baseDelay(Duration.ofMillis(10))
            .maxDelay(Duration.ofMillis(20)).build())
        .build();
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    store.close();
    server.close();
  }

  private IntentSpec spec(String order) {
    return IntentSpec.builder().operation("pay").scope("shop")
        .post(server.url("/payments").toString()).jsonBody("{\"order\":\"" + order + "\"}")
        .build();
  }

  private static MockResponse status(int code) {
    return new MockResponse.Builder().code(code).body("{}").build();
  }

  @Test
  void a_pending_intent_is_driven_again_at_its_due_time_without_the_app_asking() throws Exception {
    server.enqueue(status(503));
    server.enqueue(status(201));
    IntentOutcome first = client.execute(spec("o-1"));
    assertThat(first).isInstanceOf(IntentOutcome.Pending.class);
    IntentId id = first.id();
    try (DueWorkScheduler scheduler = DueWorkScheduler.builder(client)
        .interval(Duration.ofMillis(50)).build()) {
      scheduler.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!(client.outcomeOf(id).orElseThrow() instanceof IntentOutcome.Completed)) {
        assertThat(System.nanoTime()).as("never driven again").isLessThan(deadline);
        TimeUnit.MILLISECONDS.sleep(20);
      }
    }
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void the_outcomes_of_one_ticks_drives_are_told_together_once_the_last_ended() throws Exception {
    server.enqueue(status(503));
    server.enqueue(status(503));
    IntentOutcome first = client.execute(spec("o-1"));
    IntentOutcome second = client.execute(spec("o-2"));
    assertThat(List.of(first, second)).allMatch(IntentOutcome.Pending.class::isInstance);
    server.enqueue(status(201));
    server.enqueue(status(201));
    List<List<IntentOutcome>> told = new CopyOnWriteArrayList<>();
    DueWorkScheduler scheduler = DueWorkScheduler.builder(client).outcomes(told::add).build();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    int started = 0;
    while (started == 0) {
      assertThat(System.nanoTime()).as("never due").isLessThan(deadline);
      TimeUnit.MILLISECONDS.sleep(20);
      started = scheduler.pollOnce();
    }
    assertThat(started).isEqualTo(2);
    while (told.isEmpty()) {
      assertThat(System.nanoTime()).as("never told").isLessThan(deadline);
      TimeUnit.MILLISECONDS.sleep(20);
    }
    assertThat(told).singleElement().satisfies(outcomes -> assertThat(outcomes)
        .extracting(o -> o.getClass().getSimpleName())
        .containsExactly("Completed", "Completed"));
  }

  @Test
  void a_client_built_with_scheduled_due_work_drives_pending_intents_and_stops_with_close()
      throws Exception {
    server.enqueue(status(503));
    server.enqueue(status(201));
    IdempotentClient scheduled = IdempotentClient.builder().store(store)
        .retryPolicy(RetryPolicy.builder().maxAttempts(1).baseDelay(Duration.ofMillis(10))
            .maxDelay(Duration.ofMillis(20)).build())
        .scheduleDueWork(Duration.ofMillis(50))
        .build();
    try {
      IntentOutcome first = scheduled.execute(spec("o-2"));
      assertThat(first).isInstanceOf(IntentOutcome.Pending.class);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!(scheduled.outcomeOf(first.id()).orElseThrow()
          instanceof IntentOutcome.Completed)) {
        assertThat(System.nanoTime()).as("never driven again").isLessThan(deadline);
        TimeUnit.MILLISECONDS.sleep(20);
      }
    } finally {
      scheduled.close();
    }
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(Thread.getAllStackTraces().keySet()).as("close() stopped the scheduler thread")
        .noneMatch(t -> t.isAlive() && t.getName().equals("oncely-due-work"));
  }

  @Test
  void records_due_later_are_left_alone_and_one_tick_claims_at_most_the_batch_size() {
    Instant now = Instant.now();
    for (int i = 0; i < 5; i++) {
      store.create(IntentStoreContract.newRecord("s", "op", "due-" + i).toBuilder()
          .url(server.url("/payments").toString()).createdAt(now).updatedAt(now).build());
    }
    IntentRecord later = IntentStoreContract.newRecord("s", "op", "later").toBuilder()
        .state(IntentState.PENDING).nextAttemptAt(now.plusSeconds(3600)).build();
    store.create(later);
    for (int i = 0; i < 6; i++) {
      server.enqueue(status(201));
    }
    DueWorkScheduler scheduler = DueWorkScheduler.builder(client).batchSize(3).build();
    assertThat(store.claimDue(now, 10)).hasSize(5).doesNotContain(later);
    assertThat(scheduler.pollOnce()).isEqualTo(3);
  }

  @Test
  void a_tick_after_the_client_closed_fails_and_a_closed_scheduler_refuses_to_restart() {
    store.create(IntentStoreContract.newRecord("s", "op", "due"));
    DueWorkScheduler scheduler = DueWorkScheduler.builder(client).build();
    client.close();
    assertThatThrownBy(scheduler::pollOnce).isInstanceOf(IllegalStateException.class);
    scheduler.close();
    assertThatThrownBy(scheduler::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void builder_refuses_nonsense() {
    DueWorkScheduler.Builder b = DueWorkScheduler.builder(client);
    assertThatThrownBy(() -> b.interval(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.jitter(1.0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.batchSize(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.maxConcurrent(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
