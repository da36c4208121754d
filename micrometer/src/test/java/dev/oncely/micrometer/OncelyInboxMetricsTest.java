package dev.oncely.micrometer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.server.inbox.Delivery;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.webhook.StandardWebhooks;
import dev.oncely.server.webhook.WebhookReceiver;
import dev.oncely.server.webhook.WebhookRequest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OncelyInboxMetrics} on a real inbox and webhook receiver over an in-memory store: every
 * inbox event is counted under its kind and source, every refusal under its source and reason,
 * the gauges report the unfinished messages by state and the oldest queued one's age, a reading
 * serves the gauges for the cache time only, and a failing store keeps the last reading.
 */
class OncelyInboxMetricsTest {
  private static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  private static final byte[] KEY = "a test signing key of 32 bytes!!".getBytes(UTF_8);
  private static final String SECRET = "whsec_" + Base64.getEncoder().encodeToString(KEY);

  private final ManualClock clock = new ManualClock(T0);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicInteger listings = new AtomicInteger();
  private final AtomicBoolean storeFails = new AtomicBoolean();
  private final IntentStore store = new ForwardingIntentStore(new InMemoryIntentStore()) {
    @Override
    public List<IntentRecord> listUnfinished() {
      listings.incrementAndGet();
      if (storeFails.get()) {
        throw new StoreException("the disk is away");
      }
      return super.listUnfinished();
    }
  };
  private final BlockingQueue<InboxEvent> events = new LinkedBlockingQueue<>();
  private final List<Inbox> inboxes = new ArrayList<>();

  @AfterEach
  void close() {
    inboxes.forEach(Inbox::close);
    store.close();
  }

  private Inbox.Builder inbox(OncelyInboxMetrics metrics) {
    return Inbox.builder(store).clock(clock).listener(e -> {
      metrics.onEvent(e);
      events.add(e);
    });
  }

  private Inbox started(Inbox.Builder builder) {
    Inbox inbox = builder.build();
    inboxes.add(inbox);
    return inbox;
  }

  private void await(InboxEvent.Kind kind, String source) throws InterruptedException {
    while (true) {
      InboxEvent e = events.poll(10, TimeUnit.SECONDS);
      assertThat(e).describedAs("an event " + kind + " of " + source).isNotNull();
      if (e.kind() == kind && e.source().equals(source)) {
        return;
      }
    }
  }

  private double count(String kind, String source) {
    Counter c = registry.find(OncelyInboxMetrics.MESSAGES).tag("kind", kind)
        .tag("source", source).counter();
    return c == null ? 0 : c.count();
  }

  private double refused(String source, String reason) {
    Counter c = registry.find(OncelyInboxMetrics.REFUSED).tag("source", source)
        .tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }

  private double unfinished(String state) {
    return registry.get(OncelyInboxMetrics.UNFINISHED).tag("state", state).gauge().value();
  }

  private double oldestQueuedSeconds() {
    return registry.get(OncelyInboxMetrics.OLDEST_QUEUED_AGE).timeGauge()
        .value(TimeUnit.SECONDS);
  }

  @Test
  void each_inbox_event_is_counted_by_kind_and_source() throws Exception {
    OncelyInboxMetrics metrics = OncelyInboxMetrics.builder(registry).build();
    AtomicInteger runs = new AtomicInteger();
    Inbox inbox = started(inbox(metrics).maxFailures(2).backoff(Duration.ofMillis(1),
        Duration.ofMillis(1)).pollInterval(Duration.ofMillis(10))
        .handler("stripe", m -> runs.incrementAndGet())
        .handler("github", m -> {
          throw new IllegalStateException("the ledger is away");
        }));

    inbox.accept("stripe", "evt_1", "charge.succeeded", "{}".getBytes(UTF_8), null);
    await(InboxEvent.Kind.HANDLED, "stripe");
    inbox.accept("stripe", "evt_1", "charge.succeeded", "{}".getBytes(UTF_8), null);
    inbox.accept("stripe", "evt_1", "charge.succeeded", "{\"x\":1}".getBytes(UTF_8), null);
    inbox.accept("github", "d-1", "push", "{}".getBytes(UTF_8), null);
    // The backoff is due on the wall clock the inbox reads: move it past the first wait.
    await(InboxEvent.Kind.FAILED, "github");
    clock.advance(Duration.ofSeconds(1));
    inbox.pollNow();
    await(InboxEvent.Kind.DEAD_LETTERED, "github");

    assertThat(count("accepted", "stripe")).isEqualTo(1);
    assertThat(count("started", "stripe")).isEqualTo(1);
    assertThat(count("handled", "stripe")).isEqualTo(1);
    assertThat(count("duplicate", "stripe")).isEqualTo(2);
    assertThat(count("mismatch", "stripe")).isEqualTo(1);
    assertThat(count("accepted", "github")).isEqualTo(1);
    assertThat(count("started", "github")).isEqualTo(2);
    assertThat(count("failed", "github")).isEqualTo(1);
    assertThat(count("dead_lettered", "github")).isEqualTo(1);
    assertThat(count("handled", "github")).isZero();
    assertThat(runs).hasValue(1);

    inbox.replay("github", "d-1", "ops", "ledger is back");
    assertThat(count("replayed", "github")).isEqualTo(1);
  }

  @Test
  void each_refused_delivery_is_counted_by_source_and_reason_and_nothing_else_is()
      throws Exception {
    OncelyInboxMetrics metrics = OncelyInboxMetrics.builder(registry).build();
    Inbox inbox = started(inbox(metrics).workers(0));
    WebhookReceiver receiver = WebhookReceiver.builder(inbox).clock(clock).listener(metrics)
        .source("standard", StandardWebhooks.builder().secret(SECRET).build()).build();
    byte[] body = "{\"type\":\"invoice.paid\"}".getBytes(UTF_8);
    long now = T0.getEpochSecond();

    assertThat(receiver.receive("standard", signed("msg_1", now, body, KEY)).status())
        .isEqualTo(200);
    assertThat(receiver.receive("standard", signed("msg_2", now, body,
        "another key of the same length!!".getBytes(UTF_8))).status()).isEqualTo(401);
    assertThat(receiver.receive("standard", signed("msg_3", now - 3600, body, KEY)).status())
        .isEqualTo(401);
    assertThat(receiver.receive("standard", signed("msg_4", now + 3600, body, KEY)).status())
        .isEqualTo(401);
    assertThat(receiver.receive("standard", WebhookRequest.of(Map.of("webhook-id",
        List.of("msg_5")), body)).status()).isEqualTo(400);

    assertThat(refused("standard", "bad_signature")).isEqualTo(1);
    assertThat(refused("standard", "stale_timestamp")).isEqualTo(1);
    assertThat(refused("standard", "future_timestamp")).isEqualTo(1);
    assertThat(refused("standard", "missing_signature")).isEqualTo(1);
    assertThat(registry.find(OncelyInboxMetrics.REFUSED).counters()).hasSize(4);
    assertThat(count("accepted", "standard")).isEqualTo(1);
  }

  @Test
  void gauges_report_queued_processing_and_dead_messages_and_the_oldest_queued_age()
      throws Exception {
    OncelyInboxMetrics metrics = OncelyInboxMetrics.builder(registry).clock(clock)
        .cacheFor(Duration.ZERO).build();
    Inbox inbox = started(inbox(metrics).workers(0).maxFailures(1));
    metrics.watch(inbox);
    assertThat(unfinished("queued")).isZero();
    assertThat(oldestQueuedSeconds()).isZero();

    inbox.accept("stripe", "evt_1", null, new byte[0], null);
    clock.advance(Duration.ofSeconds(30));
    inbox.accept("stripe", "evt_2", null, new byte[0], null);
    clock.advance(Duration.ofSeconds(15));
    assertThat(inbox.once("jobs", "j-1", new byte[0], m -> {
      throw new IllegalStateException("poison");
    })).isEqualTo(Delivery.DEAD_LETTERED);
    double[] inside = new double[1];
    assertThat(inbox.once("jobs", "j-2", new byte[0], m -> inside[0] = unfinished("processing")))
        .isEqualTo(Delivery.HANDLED);

    assertThat(inside[0]).describedAs("processing while its handler runs").isEqualTo(1);
    assertThat(unfinished("processing")).isZero();
    assertThat(unfinished("queued")).isEqualTo(2);
    assertThat(unfinished("dead")).isEqualTo(1);
    assertThat(oldestQueuedSeconds()).isEqualTo(45);
  }

  @Test
  void one_reading_serves_the_gauges_for_the_cache_time_and_a_failing_store_keeps_the_last()
      throws Exception {
    OncelyInboxMetrics metrics = OncelyInboxMetrics.builder(registry).clock(clock)
        .cacheFor(Duration.ofSeconds(5)).build();
    Inbox inbox = started(inbox(metrics).workers(0));
    metrics.watch(inbox);
    inbox.accept("stripe", "evt_1", null, new byte[0], null);

    assertThat(unfinished("queued")).isEqualTo(1);
    inbox.accept("stripe", "evt_2", null, new byte[0], null);
    assertThat(unfinished("queued")).describedAs("cached").isEqualTo(1);
    assertThat(unfinished("dead")).isZero();
    assertThat(listings).hasValue(1);

    clock.advance(Duration.ofSeconds(5));
    assertThat(unfinished("queued")).isEqualTo(2);
    assertThat(listings).hasValue(2);

    storeFails.set(true);
    metrics.refresh();
    assertThat(unfinished("queued")).describedAs("the last reading").isEqualTo(2);
    assertThat(registry.get(OncelyInboxMetrics.REFRESH_FAILURES).counter().count())
        .isEqualTo(1);
  }

  @Test
  void source_tags_are_capped_and_a_second_inbox_is_refused() {
    OncelyInboxMetrics metrics = OncelyInboxMetrics.builder(registry).maxSources(1).build();
    metrics.onEvent(new InboxEvent(InboxEvent.Kind.ACCEPTED, "stripe", "h1"));
    metrics.onEvent(new InboxEvent(InboxEvent.Kind.ACCEPTED, "github", "h2"));
    assertThat(count("accepted", "stripe")).isEqualTo(1);
    assertThat(count("accepted", "other")).isEqualTo(1);

    Inbox first = started(inbox(metrics).workers(0));
    Inbox second = started(Inbox.builder(new InMemoryIntentStore()).workers(0));
    assertThat(metrics.watch(first).watch(first)).isSameAs(metrics);
    assertThatThrownBy(() -> metrics.watch(second)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("another inbox");
  }

  /** A Standard Webhooks delivery of {@code body} signed with {@code key}. */
  private static WebhookRequest signed(String id, long timestamp, byte[] body, byte[] key)
      throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    mac.update((id + "." + timestamp + ".").getBytes(UTF_8));
    String signature = "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
    return WebhookRequest.of(Map.of("webhook-id", List.of(id),
        "webhook-timestamp", List.of(Long.toString(timestamp)),
        "webhook-signature", List.of(signature)), body);
  }
}
