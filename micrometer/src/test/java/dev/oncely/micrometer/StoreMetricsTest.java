package dev.oncely.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.DuplicateIntentException;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.spi.IntentStoreContract;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

class StoreMetricsTest {
  private static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final InMemoryIntentStore store = new InMemoryIntentStore();

  private IntentSpec spec(String businessId) {
    return IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .businessId(businessId).post(server.url("/payments").toString())
        .jsonBody("{\"amount\":1}").build();
  }

  private IdempotentClient client(IntentStore s) {
    return IdempotentClient.builder().store(s).clock(clock).sleeper(new RecordingSleeper(clock))
        .retryBudget(RetryBudget.builder().capacity(0).refillPerSecond(0).build()).build();
  }

  private double gauge(String name, String... tags) {
    return registry.get(name).tags(tags).gauge().value();
  }

  @Test
  void gauges_count_unfinished_records_by_state_and_the_reconciliation_backlog() {
    server.enqueue(new MockResponse.Builder().code(503).build());
    try (IdempotentClient client = client(store)) {
      assertThat(client.execute(spec("b-1"))).isInstanceOf(IntentOutcome.Pending.class);
    }
    store.create(IntentStoreContract.fullRecord("tenant-a", "refund", "k-reconcile").toBuilder()
        .state(IntentState.NEEDS_RECONCILIATION).createdAt(T0.minus(Duration.ofHours(2)))
        .updatedAt(T0).build());
    IntentStoreGauges gauges = IntentStoreGauges.builder(store).clock(clock)
        .refreshEvery(Duration.ZERO).build();

    gauges.bindTo(registry);

    assertThat(gauge(IntentStoreGauges.UNFINISHED, "state", "pending")).isEqualTo(1);
    assertThat(gauge(IntentStoreGauges.UNFINISHED, "state", "needs_reconciliation"))
        .isEqualTo(1);
    assertThat(gauge(IntentStoreGauges.UNFINISHED, "state", "in_flight")).isZero();
    assertThat(gauge(IntentStoreGauges.RECONCILIATION_BACKLOG)).isEqualTo(1);
    assertThat(registry.get(IntentStoreGauges.OLDEST_UNFINISHED_AGE).timeGauge()
        .value(TimeUnit.SECONDS)).isEqualTo(Duration.ofHours(2).toSeconds());
    assertThat(registry.find(IntentStoreGauges.UNFINISHED).tag("state", "completed").gauge())
        .isNull();
  }

  @Test
  void gauges_change_only_when_refreshed_so_a_scrape_never_reads_the_store() {
    IntentStoreGauges gauges = IntentStoreGauges.builder(store).clock(clock)
        .refreshEvery(Duration.ZERO).build();
    gauges.bindTo(registry);
    assertThat(gauge(IntentStoreGauges.RECONCILIATION_BACKLOG)).isZero();
    assertThat(registry.get(IntentStoreGauges.OLDEST_UNFINISHED_AGE).timeGauge()
        .value(TimeUnit.SECONDS)).isZero();

    store.create(IntentStoreContract.fullRecord("tenant-a", "refund", "k-1").toBuilder()
        .state(IntentState.NEEDS_RECONCILIATION).createdAt(T0).updatedAt(T0).build());
    assertThat(gauge(IntentStoreGauges.RECONCILIATION_BACKLOG)).isZero();

    gauges.refresh();
    clock.advance(Duration.ofMinutes(5));

    assertThat(gauge(IntentStoreGauges.RECONCILIATION_BACKLOG)).isEqualTo(1);
    assertThat(registry.get(IntentStoreGauges.OLDEST_UNFINISHED_AGE).timeGauge()
        .value(TimeUnit.SECONDS)).isEqualTo(300);
  }

  @Test
  void a_failing_store_keeps_the_last_snapshot_and_counts_the_failure() {
    AtomicBoolean broken = new AtomicBoolean();
    IntentStore flaky = new ForwardingIntentStore(store) {
      @Override
      public List<IntentRecord> listUnfinished() {
        if (broken.get()) {
          throw new StoreException("disk gone");
        }
        return super.listUnfinished();
      }
    };
    store.create(IntentStoreContract.fullRecord("tenant-a", "refund", "k-1"));
    IntentStoreGauges gauges = IntentStoreGauges.builder(flaky).refreshEvery(Duration.ZERO).build();
    gauges.bindTo(registry);

    broken.set(true);
    gauges.refresh();

    assertThat(gauge(IntentStoreGauges.UNFINISHED, "state", "pending")).isEqualTo(1);
    assertThat(registry.get(IntentStoreGauges.REFRESH_FAILURES).counter().count()).isEqualTo(1);
  }

  @Test
  void binding_twice_is_refused() {
    IntentStoreGauges gauges = IntentStoreGauges.builder(store).refreshEvery(Duration.ZERO).build();
    gauges.bindTo(registry);

    assertThatThrownBy(() -> gauges.bindTo(new SimpleMeterRegistry()))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void a_refresh_thread_is_started_and_closing_stops_it() {
    try (IntentStoreGauges gauges = IntentStoreGauges.builder(store)
        .refreshEvery(Duration.ofMinutes(10)).build()) {
      gauges.bindTo(registry);
      assertThat(Thread.getAllStackTraces().keySet())
          .anyMatch(t -> t.getName().equals("oncely-store-gauges") && t.isDaemon());
    }
  }

  @Test
  void store_commits_made_by_a_real_client_are_timed() {
    server.enqueue(new MockResponse.Builder().code(201).build());
    TimedIntentStore timed = new TimedIntentStore(store, registry, Tags.of("store", "memory"));

    try (IdempotentClient client = client(timed)) {
      assertThat(client.execute(spec("b-1"))).isInstanceOf(IntentOutcome.Completed.class);
    }

    assertThat(registry.get(TimedIntentStore.COMMIT)
        .tags("op", "create", "result", "ok", "store", "memory").timer().count()).isEqualTo(1);
    assertThat(registry.get(TimedIntentStore.COMMIT)
        .tags("op", "compare_and_set", "result", "ok").timer().count()).isPositive();
  }

  @Test
  void a_lost_compare_and_set_and_a_duplicate_create_are_timed_with_their_result() {
    TimedIntentStore timed = new TimedIntentStore(store, registry);
    IntentRecord record = IntentStoreContract.fullRecord("tenant-a", "refund", "k-1")
        .toBuilder().revision(0).build();
    timed.create(record);

    assertThatThrownBy(() -> timed.create(record)).isInstanceOf(DuplicateIntentException.class);
    IntentRecord stored = timed.get(record.id()).orElseThrow();
    assertThat(timed.compareAndSet(stored, stored.successor().attempts(4).build())).isTrue();
    assertThat(timed.compareAndSet(stored, stored.successor().attempts(5).build())).isFalse();

    assertThat(registry.get(TimedIntentStore.COMMIT).tags("op", "create", "result", "duplicate")
        .timer().count()).isEqualTo(1);
    assertThat(registry.get(TimedIntentStore.COMMIT)
        .tags("op", "compare_and_set", "result", "conflict").timer().count()).isEqualTo(1);
    assertThat(registry.get(TimedIntentStore.COMMIT)
        .tags("op", "compare_and_set", "result", "ok").timer().count()).isEqualTo(1);
  }
}
