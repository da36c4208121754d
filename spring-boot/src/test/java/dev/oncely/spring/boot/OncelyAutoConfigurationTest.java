package dev.oncely.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.DueWorkScheduler;
import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.IntentTag;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.micrometer.IntentStoreGauges;
import dev.oncely.micrometer.OncelyMetrics;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.spring.web.IntentAttributes;
import dev.oncely.spring.web.OncelyClientHttpRequestFactory;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/**
 * The starter's wiring, each question in a real context started by {@link
 * ApplicationContextRunner}: defaults, switches, replaceable beans, properties, optional
 * Micrometer and health, and the lifecycle (resume when ready, intents resumable after close)
 * against the testing kit's server.
 */
class OncelyAutoConfigurationTest {
  private static final String BODY = "{\"order\":\"order-7\",\"amount\":1000}";

  @TempDir
  Path dir;

  private final MockWebServer server = new MockWebServer();
  private IdempotentServer kit;

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  private Path storeFile() {
    return dir.resolve("oncely").resolve("intents.db");
  }

  /** Due work off, so only what a test starts drives intents. */
  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OncelyAutoConfiguration.class,
            OncelyHealthAutoConfiguration.class))
        .withPropertyValues("oncely.store.path=" + storeFile(), "oncely.due-work.enabled=false",
            "oncely.retry.base-delay=5ms", "oncely.retry.max-delay=20ms");
  }

  private void startKit(FaultScript faults) throws Exception {
    kit = IdempotentServer.builder().faults(faults)
        .intentOf(IdempotentServer.jsonField("order")).build();
    server.setDispatcher(kit);
    server.start();
  }

  private IntentSpec payment() {
    return IntentSpec.builder().operation("create-payment").scope("tenant-42")
        .businessId("order-7").post(server.url("/payments").toString())
        .jsonBody(BODY.getBytes(StandardCharsets.UTF_8)).build();
  }

  private static void ready(AssertableApplicationContext context) {
    ConfigurableApplicationContext app =
        context.getSourceApplicationContext(ConfigurableApplicationContext.class);
    app.publishEvent(new ApplicationReadyEvent(new SpringApplication(), new String[0], app,
        Duration.ZERO));
  }

  private static IntentRecord order7(IntentStore store) {
    return store.findByBusinessId("tenant-42", "create-payment", "order-7").orElseThrow();
  }

  /**
   * An app's listener bean: keeps the events of the context's drives and completes {@link #end}
   * with the first that ends a drive. A drive writes its record before it tells the event, so a
   * test that waits for the end reads the record as the drive left it, without polling the store.
   */
  static final class DriveEnds implements IntentListener {
    final Queue<IntentEvent> events = new ConcurrentLinkedQueue<>();
    final CompletableFuture<IntentEvent> end = new CompletableFuture<>();

    @Override
    public void onEvent(IntentEvent event) {
      events.add(event);
      if (event instanceof IntentEvent.Completed || event instanceof IntentEvent.Rejected
          || event instanceof IntentEvent.PayloadMismatch
          || event instanceof IntentEvent.GaveUpUnknown
          || event instanceof IntentEvent.NeedsReconciliation) {
        end.complete(event);
      }
    }

    /** The event that ended the first drive, waited for at most 20 s. */
    IntentEvent awaitEnd() throws Exception {
      return end.get(20, TimeUnit.SECONDS);
    }

    long attemptsStarted() {
      return events.stream().filter(IntentEvent.AttemptStarted.class::isInstance).count();
    }
  }

  @Test
  void defaults_give_a_mapdb_store_under_the_path_and_every_bean_on_it() {
    runner().run(context -> {
      assertThat(context).hasNotFailed();
      IntentStore store = context.getBean(IntentStore.class);
      assertThat(store).isInstanceOf(MapDbIntentStore.class);
      assertThat(Files.exists(storeFile())).isTrue();
      assertThat(context.getBean(IdempotentClient.class).store()).isSameAs(store);
      assertThat(context).hasSingleBean(IdempotencyInterceptor.class)
          .hasSingleBean(OncelyClientHttpRequestFactory.class)
          .hasSingleBean(ResumeOnReady.class)
          .hasSingleBean(OncelyHealthIndicator.class)
          .doesNotHaveBean(DueWorkScheduler.class)
          .doesNotHaveBean(OncelyMetrics.class);
      assertThat(context.getBean(OncelyHealthIndicator.class).health().getStatus())
          .isEqualTo(Status.UP);
    });
  }

  @Test
  void due_work_runs_as_a_lifecycle_bean_while_the_context_runs() {
    runner().withPropertyValues("oncely.due-work.enabled=true").run(context -> {
      assertThat(context).hasSingleBean(DueWorkScheduler.class);
      DueWorkLifecycle lifecycle = context.getBean(DueWorkLifecycle.class);
      assertThat(lifecycle.isRunning()).isTrue();
      context.close();
      assertThat(lifecycle.isRunning()).isFalse();
    });
  }

  @Test
  void due_work_never_drives_an_intent_beside_its_running_rest_client_call() throws Exception {
    // The first attempt's answer stalls until the test ends the stall (closing the kit drops the
    // held connection), well inside the attempt timeout; 8 s only bounds a test that never does.
    startKit(FaultScript.builder().onRequest(1, Fault.stallAfterCommit())
        .stallFor(Duration.ofSeconds(8)).build());
    WatchedClaims store = new WatchedClaims(MapDbIntentStore.open(storeFile()));
    runner().withBean("myStore", IntentStore.class, () -> store)
        .withPropertyValues("oncely.due-work.enabled=true", "oncely.due-work.interval=50ms",
            "oncely.retry.attempt-timeout=10s").run(context -> {
          DueWorkScheduler scheduler = context.getBean(DueWorkScheduler.class);
          RestClient rest = RestClient.builder()
              .requestFactory(context.getBean(OncelyClientHttpRequestFactory.class)).build();
          CompletableFuture<String> answer = CompletableFuture.supplyAsync(() ->
              rest.post().uri(server.url("/payments").uri())
                  .attributes(IntentAttributes.of(IntentTag.builder().operation("create-payment")
                      .scope("tenant-42").businessId("order-7").build()))
                  .contentType(MediaType.APPLICATION_JSON).body(BODY)
                  .retrieve().body(String.class));
          kit.ledger().awaitCountOf("order-7", 1, Duration.ofSeconds(10));

          // While the first attempt stalls, the record is IN_FLIGHT, held until its attempt times
          // out, and driven in this process: ticks of the scheduler run (two whole ones between
          // the commit and the third claim) and none drives it beside the call.
          assertThat(order7(store).state()).isEqualTo(IntentState.IN_FLIGHT);
          store.awaitClaims(store.claims() + 3);
          kit.close();
          assertThat(answer.get(20, TimeUnit.SECONDS)).contains("succeeded");

          // Every drive a tick started has ended: a tick began after the answer (so every earlier
          // tick had started its drives) while the scheduler drove nothing.
          for (int ticks = 1; ; ticks++) {
            store.awaitClaims(store.claims() + 1);
            if (scheduler.driving() == 0) {
              break;
            }
            assertThat(ticks).as("a drive of the scheduler never ended").isLessThan(200);
          }
        });
    assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);
    // The stalled attempt and the call's own resend; no attempt of a second driver in between.
    assertThat(kit.requests().size()).isEqualTo(2);
  }

  @Test
  void enabled_false_configures_nothing() {
    runner().withPropertyValues("oncely.enabled=false").run(context -> {
      assertThat(context).hasNotFailed()
          .doesNotHaveBean(IntentStore.class)
          .doesNotHaveBean(IdempotentClient.class)
          .doesNotHaveBean(IdempotencyInterceptor.class)
          .doesNotHaveBean(OncelyHealthIndicator.class);
      assertThat(Files.exists(storeFile())).isFalse();
    });
  }

  @Test
  void a_users_store_and_client_win_and_the_rest_is_built_on_them() {
    InMemoryIntentStore mine = new InMemoryIntentStore();
    runner().withBean("myStore", IntentStore.class, () -> mine).run(context -> {
      assertThat(context.getBean(IntentStore.class)).isSameAs(mine);
      assertThat(context.getBean(IdempotentClient.class).store()).isSameAs(mine);
      assertThat(Files.exists(storeFile())).isFalse();
    });
    runner().withBean("myClient", IdempotentClient.class,
        () -> IdempotentClient.builder().store(mine).build()).run(context -> {
          assertThat(context).hasSingleBean(IdempotentClient.class);
          assertThat(context.getBean(IdempotentClient.class).store()).isSameAs(mine);
        });
  }

  @Test
  void properties_reach_the_policy_the_dialect_and_the_client() throws Exception {
    server.start();
    for (int i = 0; i < 3; i++) {
      server.enqueue(new MockResponse.Builder().code(503).build());
    }
    runner().withPropertyValues("oncely.retry.max-attempts=2", "oncely.retry.deadline=7s",
        "oncely.dialect=stripe", "oncely.store.engine=memory").run(context -> {
          RetryPolicy policy = context.getBean(RetryPolicy.class);
          assertThat(policy.maxAttempts()).isEqualTo(2);
          assertThat(policy.deadline()).isEqualTo(Duration.ofSeconds(7));
          assertThat(policy.baseDelay()).isEqualTo(Duration.ofMillis(5));
          assertThat(context.getBean(Dialect.class).name()).isEqualTo("stripe");
          assertThat(context.getBean(IntentStore.class)).isInstanceOf(InMemoryIntentStore.class);

          IntentOutcome outcome = context.getBean(IdempotentClient.class).execute(payment());

          assertThat(outcome.state()).isEqualTo(IntentState.PENDING);
          assertThat(server.getRequestCount()).isEqualTo(2);
          assertThat(server.takeRequest().getHeaders().get("Idempotency-Key"))
              .doesNotStartWith("\"");
        });
  }

  @Test
  void with_micrometer_the_bridge_counts_events_and_the_store_gauges_are_bound() throws Exception {
    startKit(FaultScript.none());
    runner().withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class))
        .run(context -> {
          assertThat(context).hasSingleBean(OncelyMetrics.class)
              .hasSingleBean(IntentStoreGauges.class);
          context.getBean(IdempotentClient.class).execute(payment());
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          assertThat(registry.find(OncelyMetrics.RECORDED).counter()).isNotNull();
          assertThat(registry.find(IntentStoreGauges.RECONCILIATION_BACKLOG).gauge()).isNotNull();
        });
  }

  @Test
  void without_micrometer_on_the_classpath_there_are_no_meters_and_the_rest_works() {
    runner().withClassLoader(new FilteredClassLoader("io.micrometer"))
        .run(context -> {
          assertThat(context).hasNotFailed()
              .hasSingleBean(IdempotentClient.class)
              .doesNotHaveBean("oncelyMetrics")
              .doesNotHaveBean("oncelyIntentStoreGauges");
        });
  }

  /** Imported as an app's auto-configuration is: through Boot's filter on the class metadata. */
  @ImportAutoConfiguration({OncelyAutoConfiguration.class, OncelyHealthAutoConfiguration.class})
  static class ImportedLikeAnApp {}

  @Test
  void without_actuator_health_on_the_classpath_there_is_no_health_indicator() {
    new ApplicationContextRunner().withUserConfiguration(ImportedLikeAnApp.class)
        .withPropertyValues("oncely.store.engine=memory")
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
        .run(context -> assertThat(context).hasNotFailed()
            .doesNotHaveBean("oncelyHealthIndicator")
            .hasSingleBean(IdempotentClient.class));
  }

  @Test
  void health_is_down_when_the_store_fails() {
    runner().run(context -> {
      context.getBean(IntentStore.class).close();

      Health health = context.getBean(OncelyHealthIndicator.class).health();

      assertThat(health.getStatus()).isEqualTo(Status.DOWN);
      assertThat(health.getDetails()).containsKey("error");
    });
  }

  /**
   * The app's store, which counts the due-work scheduler's claims (one per tick, each begun only
   * once the tick before it ended) and wakes the test at each, notes the thread that claims, and
   * throws from a claim what the test queues (then answers as usual).
   */
  static final class WatchedClaims extends ForwardingIntentStore {
    final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition claimed = lock.newCondition();
    private int claims;
    private Thread claimer;

    WatchedClaims(IntentStore store) {
      super(store);
    }

    @Override
    public List<IntentRecord> claimDue(Instant now, int limit) {
      lock.lock();
      try {
        claims++;
        claimer = Thread.currentThread();
        claimed.signalAll();
      } finally {
        lock.unlock();
      }
      Throwable next = failures.poll();
      if (next instanceof Error e) {
        throw e;
      }
      if (next instanceof RuntimeException e) {
        throw e;
      }
      return super.claimDue(now, limit);
    }

    /** How many claims have begun. */
    int claims() {
      lock.lock();
      try {
        return claims;
      } finally {
        lock.unlock();
      }
    }

    /** Waits (at most 20 s) until {@code count} claims have begun; returns the claiming thread. */
    Thread awaitClaims(int count) throws InterruptedException {
      long left = TimeUnit.SECONDS.toNanos(20);
      lock.lock();
      try {
        while (claims < count) {
          assertThat(left).as("the scheduler never claimed " + count + " times").isPositive();
          left = claimed.awaitNanos(left);
        }
        return claimer;
      } finally {
        lock.unlock();
      }
    }
  }

  @Test
  void health_reports_due_work_and_is_down_with_the_reason_once_the_scheduler_failed()
      throws Exception {
    WatchedClaims store = new WatchedClaims(new InMemoryIntentStore());
    store.failures.add(new IllegalStateException("a bug in a claim"));
    runner().withBean("myStore", IntentStore.class, () -> store)
        .withPropertyValues("oncely.due-work.enabled=true", "oncely.due-work.interval=20ms")
        .run(context -> {
          DueWorkScheduler scheduler = context.getBean(DueWorkScheduler.class);
          OncelyHealthIndicator indicator = context.getBean(OncelyHealthIndicator.class);
          // The first tick's claim failed, the second's succeeded, and the second tick ended
          // before the third claim began: the scheduler went on and the success cleared the
          // failure.
          Thread ticks = store.awaitClaims(3);
          assertThat(store.failures).isEmpty();
          assertThat(scheduler.lastTickFailure()).isEmpty();
          Health running = indicator.health();
          assertThat(running.getStatus()).isEqualTo(Status.UP);
          assertThat(running.getDetails()).containsEntry("dueWork", "RUNNING")
              .doesNotContainKey("dueWorkFailure");

          store.failures.add(new OutOfMemoryError("simulated: Java heap space"));
          // The error ends the scheduler's thread, which keeps it as the failure before it ends.
          ticks.join(TimeUnit.SECONDS.toMillis(20));
          assertThat(ticks.isAlive()).as("the scheduler's thread never ended").isFalse();
          assertThat(scheduler.state()).isEqualTo(DueWorkScheduler.State.FAILED);
          Health failed = indicator.health();
          assertThat(failed.getStatus()).isEqualTo(Status.DOWN);
          assertThat(failed.getDetails()).containsEntry("dueWork", "FAILED")
              .containsEntry("dueWorkFailure",
                  "java.lang.OutOfMemoryError: simulated: Java heap space")
              .containsKey("unfinished");
        });
  }

  @Test
  void health_is_down_past_the_reconciliation_backlog_and_the_pending_age() throws Exception {
    startKit(FaultScript.builder().onRequest(1, Fault.redirect(303, "/elsewhere")).build());
    runner().withPropertyValues("oncely.health.max-needs-reconciliation=1").run(context -> {
      OncelyHealthIndicator health = context.getBean(OncelyHealthIndicator.class);
      IdempotentClient client = context.getBean(IdempotentClient.class);
      assertThat(client.execute(payment()).state()).isEqualTo(IntentState.NEEDS_RECONCILIATION);
      assertThat(health.health().getStatus()).isEqualTo(Status.UP);
    });
    runner().withPropertyValues("oncely.health.max-needs-reconciliation=0").run(context ->
        assertThat(context.getBean(OncelyHealthIndicator.class).health().getStatus())
            .isEqualTo(Status.DOWN));
    runner().withPropertyValues("oncely.health.max-needs-reconciliation=5",
        "oncely.health.max-pending-age=1ms").run(context -> {
          IdempotentClient client = context.getBean(IdempotentClient.class);
          IntentRecord fresh = client.newRecord(IntentSpec.builder()
              .operation("create-payment").scope("tenant-42").businessId("order-9")
              .post(server.url("/payments").toString())
              .jsonBody("{\"order\":\"order-9\"}".getBytes(StandardCharsets.UTF_8)).build());
          // Born a second ago: older than the 1 ms maximum without waiting for it.
          Instant born = fresh.createdAt().minusSeconds(1);
          context.getBean(IntentStore.class).create(
              fresh.toBuilder().createdAt(born).updatedAt(born).build());
          Health health = context.getBean(OncelyHealthIndicator.class).health();
          assertThat(health.getStatus()).isEqualTo(Status.DOWN);
          assertThat(health.getDetails()).containsEntry("pendingOlderThanMax", 1);
        });
  }

  @Test
  void an_in_flight_record_is_resumed_when_the_application_is_ready_with_one_effect()
      throws Exception {
    startKit(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build());
    // What a crash during the first attempt leaves: the server committed, the record is IN_FLIGHT.
    try (IntentStore store = MapDbIntentStore.open(storeFile());
        IdempotentClient crashed = IdempotentClient.builder().store(store)
            .listener(IntentListener.NONE)
            .retryPolicy(RetryPolicy.builder().maxAttempts(1).build()).build()) {
      assertThat(crashed.execute(payment()).state()).isEqualTo(IntentState.PENDING);
      IntentRecord pending = store.listUnfinished().get(0);
      assertThat(store.compareAndSet(pending,
          pending.successor().state(IntentState.IN_FLIGHT).build())).isTrue();
    }
    assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);

    DriveEnds resume = new DriveEnds();
    runner().withBean(DriveEnds.class, () -> resume).run(context -> {
      IntentStore store = context.getBean(IntentStore.class);
      assertThat(store.listUnfinished()).singleElement().extracting(IntentRecord::state)
          .isEqualTo(IntentState.IN_FLIGHT);

      ready(context);

      assertThat(resume.awaitEnd()).isInstanceOf(IntentEvent.Completed.class);
      assertThat(order7(store).state()).isEqualTo(IntentState.COMPLETED);
    });
    assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);
    assertThat(kit.requests().all()).hasSize(2).extracting(r -> r.header("Idempotency-Key"))
        .containsOnly(kit.requests().all().get(0).header("Idempotency-Key"));
  }

  @Test
  void closing_the_context_mid_drive_leaves_the_intent_resumable_by_the_next_start()
      throws Exception {
    startKit(FaultScript.builder().onRequest(1, Fault.stallAfterCommit())
        .stallFor(Duration.ofSeconds(30)).build());
    runner().withPropertyValues("oncely.retry.attempt-timeout=20s").run(context -> {
      CompletableFuture<IntentOutcome> drive =
          context.getBean(IdempotentClient.class).submit(payment());
      kit.ledger().awaitCountOf("order-7", 1, Duration.ofSeconds(10));
      assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);
      context.close();
      assertThat(drive.get(10, TimeUnit.SECONDS).state()).isEqualTo(IntentState.PENDING);
    });
    try (IntentStore reopened = MapDbIntentStore.open(storeFile())) {
      assertThat(reopened.listUnfinished()).singleElement().extracting(IntentRecord::businessId)
          .isEqualTo("order-7");
    }

    DriveEnds resume = new DriveEnds();
    runner().withBean(DriveEnds.class, () -> resume).run(context -> {
      ready(context);
      assertThat(resume.awaitEnd()).isInstanceOf(IntentEvent.Completed.class);
      assertThat(order7(context.getBean(IntentStore.class)).state())
          .isEqualTo(IntentState.COMPLETED);
    });
    assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);
  }

  @Test
  void closing_the_context_stops_a_rest_client_call_and_the_next_context_never_overlaps_it()
      throws Exception {
    startKit(FaultScript.builder().onRequest(1, Fault.stallAfterCommit())
        .stallFor(Duration.ofSeconds(6)).build());
    IntentTag tag = IntentTag.builder().operation("create-payment").scope("tenant-42")
        .businessId("order-7").build();
    CompletableFuture<Object> call = new CompletableFuture<>();
    DriveEnds closed = new DriveEnds();
    // The first attempt stays on the wire (its answer stalls past the close): a resend, whose
    // full-jitter backoff can be near zero, can never come before the close.
    runner().withBean(DriveEnds.class, () -> closed)
        .withPropertyValues("oncely.retry.attempt-timeout=4s").run(context -> {
          OncelyClientHttpRequestFactory factory =
              context.getBean(OncelyClientHttpRequestFactory.class);
          OkHttpClient okHttp = factory.okHttpClient();
          RestClient rest = RestClient.builder().requestFactory(factory).build();
          CompletableFuture.runAsync(() -> {
            try {
              call.complete(rest.post().uri(server.url("/payments").uri())
                  .attributes(IntentAttributes.of(tag)).contentType(MediaType.APPLICATION_JSON)
                  .body(BODY).retrieve().body(String.class));
            } catch (RuntimeException e) {
              call.complete(e);
            }
          });
          kit.ledger().awaitCountOf("order-7", 1, Duration.ofSeconds(10));
          // The effect is committed and its answer stalls: the outcome is unknown.
          assertThat(order7(context.getBean(IntentStore.class)).state())
              .isEqualTo(IntentState.IN_FLIGHT);
          context.close();
          // The call ends with the context: its intent is pending, never a second attempt.
          assertThat(call.get(5, TimeUnit.SECONDS)).isInstanceOf(RuntimeException.class);
          assertThat(closed.awaitEnd()).isInstanceOf(IntentEvent.GaveUpUnknown.class);
          assertThat(closed.attemptsStarted()).isEqualTo(1);
          // Nothing of the closed context is left to send: its drive has ended, and its OkHttp
          // client runs no call and holds none queued.
          assertThat(okHttp.dispatcher().runningCallsCount()
              + okHttp.dispatcher().queuedCallsCount()).isZero();
        });
    int afterClose = kit.requests().size();

    // The next request the server sees is the next context's resume.
    DriveEnds resume = new DriveEnds();
    runner().withBean(DriveEnds.class, () -> resume).run(context -> {
      ready(context);
      assertThat(resume.awaitEnd()).isInstanceOf(IntentEvent.Completed.class);
      assertThat(order7(context.getBean(IntentStore.class)).state())
          .isEqualTo(IntentState.COMPLETED);
    });
    assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);
    assertThat(kit.requests().size()).isEqualTo(afterClose + 1);
  }
}
