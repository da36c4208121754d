package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.spi.IntentStoreContract;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
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
      assertThat(scheduled.dueWorkScheduler()).get().extracting(DueWorkScheduler::state)
          .isEqualTo(DueWorkScheduler.State.RUNNING);
      assertThat(client.dueWorkScheduler()).isEmpty();
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
    assertThat(scheduled.dueWorkScheduler().orElseThrow().state())
        .isEqualTo(DueWorkScheduler.State.STOPPED);
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

  /** A store whose claims throw what {@code failure} supplies while it supplies something. */
  private static final class FailingClaims extends ForwardingIntentStore {
    final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

    FailingClaims(IntentStore store) {
      super(store);
    }

    @Override
    public List<IntentRecord> claimDue(Instant now, int limit) {
      Throwable next = failures.poll();
      if (next instanceof RuntimeException e) {
        throw e;
      }
      if (next instanceof Error e) {
        throw e;
      }
      return super.claimDue(now, limit);
    }
  }

  /** Captures what the scheduler logs while {@code body} runs. */
  private static List<LogRecord> logged(ThrowingRunnable body) throws Exception {
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord record) {
        records.add(record);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    Logger jul = Logger.getLogger(DueWorkScheduler.class.getName());
    jul.addHandler(capture);
    try {
      body.run();
    } finally {
      jul.removeHandler(capture);
    }
    return records;
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static void await(String what, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      TimeUnit.MILLISECONDS.sleep(10);
    }
  }

  @Test
  void an_unexpected_exception_of_a_tick_is_logged_severe_told_and_survived() throws Exception {
    FailingClaims failing = new FailingClaims(store);
    IllegalArgumentException bug = new IllegalArgumentException("a bug in a claim");
    failing.failures.add(bug);
    failing.failures.add(new IllegalStateException("another bug, the client still open"));
    server.enqueue(status(201));
    List<Throwable> told = new CopyOnWriteArrayList<>();
    try (IdempotentClient client = IdempotentClient.builder().store(failing).build()) {
      IntentRecord due = client.newRecord(spec("o-1"));
      store.create(due);
      List<LogRecord> records = logged(() -> {
        try (DueWorkScheduler scheduler = DueWorkScheduler.builder(client)
            .interval(Duration.ofMillis(20)).onFailure(told::add).build()) {
          scheduler.start();
          await("the failed tick was told", () -> !told.isEmpty());
          assertThat(scheduler.lastTickFailure()).isPresent();
          await("a later tick drove the intent", () -> client.outcomeOf(due.id()).orElseThrow()
              instanceof IntentOutcome.Completed);
          await("a tick that succeeded cleared the failure",
              () -> scheduler.lastTickFailure().isEmpty());
          assertThat(scheduler.state()).isEqualTo(DueWorkScheduler.State.RUNNING);
          assertThat(scheduler.failure()).isEmpty();
        }
      });
      assertThat(told).hasSize(2).first().isSameAs(bug);
      assertThat(records).filteredOn(r -> r.getLevel() == Level.SEVERE).hasSize(2)
          .first().satisfies(r -> assertThat(r.getThrown()).isSameAs(bug));
    }
  }

  @Test
  void a_store_failure_of_a_tick_is_a_warning_and_retried_at_the_next_tick() throws Exception {
    FailingClaims failing = new FailingClaims(store);
    StoreException down = new StoreException("the store is down");
    failing.failures.add(down);
    List<Throwable> told = new CopyOnWriteArrayList<>();
    try (IdempotentClient client = IdempotentClient.builder().store(failing).build()) {
      List<LogRecord> records = logged(() -> {
        try (DueWorkScheduler scheduler = DueWorkScheduler.builder(client)
            .interval(Duration.ofMillis(20)).onFailure(told::add).build()) {
          scheduler.start();
          await("the store failure was seen", () -> failing.failures.isEmpty()
              && scheduler.lastTickFailure().isEmpty());
          assertThat(scheduler.state()).isEqualTo(DueWorkScheduler.State.RUNNING);
        }
      });
      assertThat(told).isEmpty();
      assertThat(records).filteredOn(r -> r.getLevel() == Level.WARNING).singleElement()
          .satisfies(r -> assertThat(r.getThrown()).isSameAs(down));
      assertThat(records).noneMatch(r -> r.getLevel() == Level.SEVERE);
    }
  }

  @Test
  void an_error_stops_the_scheduler_which_says_so_and_logs_it_severe() throws Exception {
    FailingClaims failing = new FailingClaims(store);
    OutOfMemoryError error = new OutOfMemoryError("simulated: Java heap space");
    failing.failures.add(error);
    List<Throwable> told = new CopyOnWriteArrayList<>();
    try (IdempotentClient client = IdempotentClient.builder().store(failing).build()) {
      DueWorkScheduler scheduler = DueWorkScheduler.builder(client)
          .interval(Duration.ofMillis(20)).onFailure(told::add).build();
      assertThat(scheduler.state()).isEqualTo(DueWorkScheduler.State.NEW);
      List<LogRecord> records = logged(() -> {
        scheduler.start();
        await("the error was told", () -> !told.isEmpty());
        await("the thread ended", () -> Thread.getAllStackTraces().keySet().stream()
            .noneMatch(t -> t.isAlive() && t.getName().equals("oncely-due-work")));
      });
      assertThat(scheduler.state()).isEqualTo(DueWorkScheduler.State.FAILED);
      assertThat(scheduler.failure()).containsSame(error);
      assertThat(told).containsExactly(error);
      assertThat(records).filteredOn(r -> r.getLevel() == Level.SEVERE).singleElement()
          .satisfies(r -> {
            assertThat(r.getThrown()).isSameAs(error);
            assertThat(r.getMessage()).contains("stopped").contains("Java heap space");
          });
      scheduler.close();
      assertThat(scheduler.state()).isEqualTo(DueWorkScheduler.State.FAILED);
    }
  }

  @Test
  void a_scheduler_stops_by_itself_once_its_client_closed_and_says_stopped() throws Exception {
    IdempotentClient own = IdempotentClient.builder().store(store).build();
    DueWorkScheduler scheduler = DueWorkScheduler.builder(own).interval(Duration.ofMillis(20))
        .build();
    scheduler.start();
    assertThat(scheduler.state()).isEqualTo(DueWorkScheduler.State.RUNNING);
    own.close();
    await("the scheduler stopped", () -> scheduler.state() == DueWorkScheduler.State.STOPPED);
    assertThat(scheduler.failure()).isEmpty();
    scheduler.close();
  }

  @Test
  void builder_refuses_nonsense() {
    DueWorkScheduler.Builder b = DueWorkScheduler.builder(client);
    assertThatThrownBy(() -> b.interval(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.jitter(1.0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.batchSize(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.maxConcurrent(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.onFailure(null)).isInstanceOf(NullPointerException.class);
  }
}
