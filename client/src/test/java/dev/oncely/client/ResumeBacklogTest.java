package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.spi.IntentStoreContract;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code resumePending()} of a backlog starts a bounded number of drives and keeps the rest as ids:
 * what it holds follows {@link IdempotentClient#RESUMES_STARTING_AT_ONCE} and {@link
 * IdempotentClient#RESUMES_AT_ONCE}, not the backlog; a drive that waits lets the next start; and
 * every future still completes, in the order of the listing, when the drives run or the client
 * closes.
 */
class ResumeBacklogTest {
  private static final int BACKLOG = 200;

  private final MockWebServer server = new MockWebServer();
  private final InMemoryIntentStore store = new InMemoryIntentStore();

  @BeforeEach
  void backlog() throws Exception {
    server.start();
    Instant now = Instant.now();
    for (int i = 0; i < BACKLOG; i++) {
      store.create(IntentStoreContract.newRecord("s", "pay", "k" + i).toBuilder()
          .url(server.url("/payments").toString()).createdAt(now.plusMillis(i))
          .updatedAt(now.plusMillis(i)).expiresAt(now.plus(Duration.ofDays(1))).build());
    }
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  @Test
  void a_resume_starts_a_bounded_number_of_drives_and_the_rest_wait_as_ids() throws Exception {
    for (int i = 0; i < BACKLOG; i++) {
      server.enqueue(new MockResponse.Builder().code(201).body("{}").build());
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch gate = new CountDownLatch(1);
    AtomicInteger dispatched = new AtomicInteger();
    Executor gated = task -> {
      dispatched.incrementAndGet();
      pool.execute(() -> {
        try {
          gate.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        task.run();
      });
    };
    try (IdempotentClient client = IdempotentClient.builder().store(store).executor(gated)
        .build()) {
      List<CompletableFuture<IntentOutcome>> futures = client.resumePending();
      assertThat(futures).hasSize(BACKLOG);
      assertThat(dispatched).hasValue(IdempotentClient.RESUMES_STARTING_AT_ONCE);
      gate.countDown();
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      for (int i = 0; i < BACKLOG; i++) {
        assertThat(futures.get(i).join()).isInstanceOfSatisfying(IntentOutcome.Completed.class,
            c -> assertThat(c.id().key()).isNotNull());
      }
      assertThat(futures.get(0).join().id().key()).isEqualTo("k0");
      assertThat(futures.get(BACKLOG - 1).join().id().key()).isEqualTo("k" + (BACKLOG - 1));
      assertThat(server.getRequestCount()).isEqualTo(BACKLOG);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * A drive that waits (here for {@code Retry-After}) gives its thread and its place among the
   * starting drives to the next: every intent of the backlog is sent once before any is sent again,
   * although only {@link IdempotentClient#RESUMES_STARTING_AT_ONCE} may be starting at a time.
   */
  @Test
  void a_drive_that_waits_gives_its_place_to_the_next() throws Exception {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return seen.add(request.getHeaders().get("Idempotency-Key"))
            ? new MockResponse.Builder().code(503).setHeader("Retry-After", "3").build()
            : new MockResponse.Builder().code(201).body("{}").build();
      }
    });
    try (IdempotentClient client = IdempotentClient.builder().store(store).build()) {
      List<CompletableFuture<IntentOutcome>> futures = client.resumePending();
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      assertThat(futures).allSatisfy(f -> assertThat(f.join())
          .isInstanceOf(IntentOutcome.Completed.class));
    }
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 2 * BACKLOG; i++) {
      keys.add(server.takeRequest().getHeaders().get("Idempotency-Key"));
    }
    assertThat(new HashSet<>(keys.subList(0, BACKLOG))).as("first attempts come first")
        .hasSize(BACKLOG);
    assertThat(new HashSet<>(keys)).hasSize(BACKLOG);
  }

  @Test
  void closing_the_client_completes_the_futures_of_drives_never_started() throws Exception {
    // The client's executor runs nothing until the client is closed.
    ConcurrentLinkedQueue<Runnable> parked = new ConcurrentLinkedQueue<>();
    IdempotentClient client = IdempotentClient.builder().store(store).executor(parked::add)
        .build();
    List<CompletableFuture<IntentOutcome>> futures = client.resumePending();
    assertThat(parked).hasSize(IdempotentClient.RESUMES_STARTING_AT_ONCE);
    // The started drives run once the close has begun: each finds it must stop.
    Thread drainer = new Thread(() -> {
      while (!futures.stream().allMatch(CompletableFuture::isDone)) {
        Runnable task = parked.poll();
        if (task != null) {
          task.run();
        } else {
          Thread.onSpinWait();
        }
      }
    });
    drainer.setDaemon(true);
    drainer.start();
    client.close();
    CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    assertThat(futures).allSatisfy(f -> assertThat(f.join())
        .isInstanceOfSatisfying(IntentOutcome.Pending.class,
            p -> assertThat(p.reason()).isEqualTo(PendingReason.INTERRUPTED)));
    assertThat(server.getRequestCount()).isZero();
  }
}
