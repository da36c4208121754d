package dev.oncely.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.InboundRequest;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.ServerAnswer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OncelyServerMetrics} on real idempotent endpoints over an in-memory receipt store: each
 * receipt event is counted under its kind and operation, the gauges report the unfinished
 * receipts, and a reading of the store serves the gauges for the cache time only.
 */
class OncelyServerMetricsTest {
  private static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  private static final EndpointPolicy PAYMENTS = EndpointPolicy.builder("payments.create").build();

  private final ManualClock clock = new ManualClock(T0);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicInteger listings = new AtomicInteger();
  private final IntentStore counted = new ForwardingIntentStore(new InMemoryIntentStore()) {
    @Override
    public List<IntentRecord> listUnfinished() {
      listings.incrementAndGet();
      return super.listUnfinished();
    }
  };
  private final ReceiptStore receipts = ReceiptStore.on(counted);
  private final OncelyServerMetrics metrics = OncelyServerMetrics.builder(registry)
      .receipts(receipts).clock(clock).build();
  private final IdempotentEndpoints endpoints = IdempotentEndpoints.builder(receipts)
      .clock(clock).listener(metrics).build();

  @AfterEach
  void close() {
    endpoints.close();
    receipts.close();
  }

  private static InboundRequest request(String key, String json) {
    return InboundRequest.builder("POST", "/payments").header("Idempotency-Key", "\"" + key + "\"")
        .header("Content-Type", "application/json")
        .body(json.getBytes(StandardCharsets.UTF_8)).principal("alice").build();
  }

  private double count(String kind) {
    Counter c = registry.find(OncelyServerMetrics.RECEIPTS).tag("kind", kind)
        .tag("operation", "payments.create").counter();
    return c == null ? 0 : c.count();
  }

  private double unfinished(String state) {
    return registry.get(OncelyServerMetrics.UNFINISHED).tag("state", state).gauge().value();
  }

  @Test
  void each_receipt_event_is_counted_by_kind_and_operation() throws Exception {
    AtomicInteger effects = new AtomicInteger();
    String json = "{\"amount\":1000}";

    endpoints.handle(request("k-1", json), PAYMENTS, context ->
        ServerAnswer.json(201, "{\"id\":" + effects.incrementAndGet() + "}"));
    ServerAnswer replay = endpoints.handle(request("k-1", json), PAYMENTS, context ->
        ServerAnswer.json(201, "{\"id\":" + effects.incrementAndGet() + "}"));
    ServerAnswer mismatch = endpoints.handle(request("k-1", "{\"amount\":1}"), PAYMENTS,
        context -> ServerAnswer.json(201, "{}"));
    endpoints.handle(request("k-2", json), PAYMENTS, context -> ServerAnswer.json(503, "{}"));

    assertThat(effects).hasValue(1);
    assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(mismatch.status()).isEqualTo(422);
    assertThat(count("reserved")).isEqualTo(2);
    assertThat(count("completed")).isEqualTo(1);
    assertThat(count("replayed")).isEqualTo(1);
    assertThat(count("mismatch")).isEqualTo(1);
    assertThat(count("released")).isEqualTo(1);
    assertThat(registry.find(OncelyServerMetrics.RECEIPTS).counters())
        .allSatisfy(c -> assertThat(c.getId().getTags()).extracting(t -> t.getKey())
            .containsExactlyInAnyOrder("kind", "operation"));
  }

  @Test
  void a_repeat_while_the_first_runs_counts_in_progress_and_the_gauge_sees_it_processing()
      throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<ServerAnswer> first = CompletableFuture.supplyAsync(() -> {
      try {
        return endpoints.handle(request("k-1", "{}"), PAYMENTS, context -> {
          running.countDown();
          finish.await(20, TimeUnit.SECONDS);
          return ServerAnswer.json(201, "{}");
        });
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    try {
      assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();

      ServerAnswer repeat = endpoints.handle(request("k-1", "{}"), PAYMENTS,
          context -> ServerAnswer.json(201, "{}"));

      assertThat(repeat.status()).isEqualTo(409);
      assertThat(count("in_progress")).isEqualTo(1);
      assertThat(unfinished("processing")).isEqualTo(1);
      assertThat(unfinished("pending")).isZero();
    } finally {
      finish.countDown();
    }
    assertThat(first.get(20, TimeUnit.SECONDS).status()).isEqualTo(201);
  }

  @Test
  void a_pending_receipt_is_counted_and_gauged_with_its_age() throws Exception {
    endpoints.handle(request("k-1", "{}"), PAYMENTS, context -> {
      context.pending("charge-7", "the provider has not answered");
      return ServerAnswer.json(202, "{}");
    });
    clock.advance(Duration.ofMinutes(3));

    ServerAnswer repeat = endpoints.handle(request("k-1", "{}"), PAYMENTS,
        context -> ServerAnswer.json(201, "{}"));

    assertThat(repeat.status()).isEqualTo(202);
    assertThat(count("pending")).isEqualTo(1);
    assertThat(count("pending_answered")).isEqualTo(1);
    assertThat(unfinished("pending")).isEqualTo(1);
    assertThat(unfinished("processing")).isZero();
    assertThat(registry.get(OncelyServerMetrics.OLDEST_PENDING_AGE).timeGauge()
        .value(TimeUnit.SECONDS)).isEqualTo(180);
  }

  @Test
  void one_listing_serves_the_gauges_for_the_cache_time_then_the_next_read_lists_again()
      throws Exception {
    assertThat(unfinished("pending")).isZero();
    assertThat(unfinished("processing")).isZero();
    assertThat(listings).hasValue(1);

    endpoints.handle(request("k-1", "{}"), PAYMENTS, context -> {
      context.pending("charge-7", "the provider has not answered");
      return ServerAnswer.json(202, "{}");
    });
    clock.advance(OncelyServerMetrics.DEFAULT_CACHE.minusMillis(1));
    assertThat(unfinished("pending")).as("within the cache time").isZero();
    assertThat(listings).hasValue(1);

    clock.advance(Duration.ofMillis(1));
    assertThat(unfinished("pending")).as("after the cache time").isEqualTo(1);
    assertThat(listings).hasValue(2);
  }

  @Test
  void a_failing_store_keeps_the_last_reading_and_counts_the_failure() throws Exception {
    endpoints.handle(request("k-1", "{}"), PAYMENTS, context -> {
      context.pending("charge-7", "the provider has not answered");
      return ServerAnswer.json(202, "{}");
    });
    assertThat(unfinished("pending")).isEqualTo(1);

    receipts.close();
    clock.advance(OncelyServerMetrics.DEFAULT_CACHE);

    assertThat(unfinished("pending")).isEqualTo(1);
    assertThat(registry.get(OncelyServerMetrics.REFRESH_FAILURES).counter().count())
        .isEqualTo(1);
    assertThat(unfinished("processing")).as("retried after the cache time, not on each read")
        .isZero();
    assertThat(registry.get(OncelyServerMetrics.REFRESH_FAILURES).counter().count())
        .isEqualTo(1);
  }

  @Test
  void without_a_receipt_store_only_the_counters_exist() {
    SimpleMeterRegistry alone = new SimpleMeterRegistry();
    OncelyServerMetrics counters = OncelyServerMetrics.builder(alone).build();

    counters.refresh();

    assertThat(alone.find(OncelyServerMetrics.UNFINISHED).gauges()).isEmpty();
    assertThat(alone.find(OncelyServerMetrics.REFRESH_FAILURES).counters()).isEmpty();
  }
}
