package dev.oncely.spring.boot.webhooks;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.micrometer.OncelyInboxMetrics;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.inbox.InboxListener;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * A Boot application on embedded Tomcat receiving Standard Webhooks deliveries posted with
 * OkHttp, as a sender posts them: a signed event is answered {@code 200} before its handler has
 * finished, its {@code @WebhookHandler} runs once, a redelivery is a {@code 200} duplicate that
 * runs nothing; a forged or stale one is refused with its reason and stores nothing; the inbox is
 * a MapDB file of its own; metrics and health see it all.
 */
@SpringBootTest(classes = WebhooksBootTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"spring.main.banner-mode=off", "oncely.store.engine=memory",
        "oncely.due-work.enabled=false", "oncely.resume-on-startup=false"})
class WebhooksBootTest {
  private static final MediaType JSON = MediaType.get("application/json");

  @TempDir
  static Path dir;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    registry.add("oncely.webhooks.store.path", () -> dir.resolve("inbox.db").toString());
    registry.add("oncely.webhooks.sources.billing.scheme", () -> "standard");
    registry.add("oncely.webhooks.sources.billing.secrets", () -> Signed.STANDARD_SECRET);
  }

  /** A Boot application of its own: auto-configuration, the handler below, no component scan. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import({Invoices.class, Events.class})
  static class App {}

  /** Counts its runs per event; a test may hold it inside a run. */
  @Component
  static class Invoices {
    final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    final BlockingQueue<String> started = new LinkedBlockingQueue<>();
    volatile CountDownLatch release = new CountDownLatch(0);

    @WebhookHandler(source = "billing", type = "invoice.paid")
    void paid(InboxMessage message, JsonNode event) throws InterruptedException {
      started.add(event.at("/data/invoice").asString());
      assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
      runs.computeIfAbsent(message.messageId(), id -> new AtomicInteger()).incrementAndGet();
    }
  }

  /** Every inbox event, for the test to wait on. */
  @Component
  static class Events implements InboxListener {
    final BlockingQueue<InboxEvent> queue = new LinkedBlockingQueue<>();

    @Override
    public void onEvent(InboxEvent event) {
      queue.add(event);
    }

    void await(InboxEvent.Kind kind) throws InterruptedException {
      while (true) {
        InboxEvent e = queue.poll(10, TimeUnit.SECONDS);
        assertThat(e).describedAs("an event " + kind).isNotNull();
        if (e.kind() == kind) {
          return;
        }
      }
    }
  }

  @LocalServerPort
  int port;

  @Autowired
  Invoices invoices;

  @Autowired
  Events events;

  @Autowired
  Inbox inbox;

  @Autowired
  MeterRegistry registry;

  @Autowired
  Map<String, HealthIndicator> health;

  private final OkHttpClient http = new OkHttpClient();

  record Answer(int status, String body) {}

  private Answer post(String source, Map<String, String> headers, byte[] body)
      throws IOException {
    Request.Builder request = new Request.Builder()
        .url("http://127.0.0.1:" + port + "/webhooks/" + source)
        .post(RequestBody.create(body, JSON));
    headers.forEach(request::header);
    try (Response response = http.newCall(request.build()).execute()) {
      return new Answer(response.code(), response.body().string());
    }
  }

  private static byte[] invoice(String id) {
    return ("{\"type\":\"invoice.paid\",\"data\":{\"invoice\":\"" + id + "\"}}").getBytes(UTF_8);
  }

  private static long now() {
    return Instant.now().getEpochSecond();
  }

  @Test
  void a_signed_event_is_answered_before_its_handler_finishes_and_runs_once_across_redeliveries()
      throws Exception {
    byte[] body = invoice("in_1");
    Map<String, String> signed = Signed.standardHeaders(Signed.STANDARD_KEY, "msg_1", now(), body);
    invoices.release = new CountDownLatch(1);
    events.queue.clear();

    Answer first = post("billing", signed, body);
    // The handler is held inside its run: the sender had its answer before the run ended.
    assertThat(first).isEqualTo(new Answer(200, "accepted"));
    assertThat(invoices.started.poll(10, TimeUnit.SECONDS)).isEqualTo("in_1");
    Answer whileRunning = post("billing", signed, body);
    invoices.release.countDown();
    events.await(InboxEvent.Kind.HANDLED);
    Answer afterwards = post("billing",
        Signed.standardHeaders(Signed.STANDARD_KEY, "msg_1", now(), body), body);

    assertThat(whileRunning).isEqualTo(new Answer(200, "duplicate"));
    assertThat(afterwards).isEqualTo(new Answer(200, "duplicate"));
    assertThat(invoices.runs.get("msg_1")).hasValue(1);
    assertThat(inbox.get("billing", "msg_1").orElseThrow().state())
        .isEqualTo(InboxState.HANDLED);
    assertThat(Files.exists(dir.resolve("inbox.db"))).isTrue();
    assertThat(registry.get(OncelyInboxMetrics.MESSAGES).tag("source", "billing")
        .tag("kind", "duplicate").counter().count()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void a_forged_or_stale_delivery_is_refused_with_its_reason_and_stores_nothing()
      throws Exception {
    byte[] body = invoice("in_2");
    Answer forged = post("billing", Signed.standardHeaders(
        "an attacker's key, 32 bytes long".getBytes(UTF_8), "msg_2", now(), body), body);
    Answer stale = post("billing", Signed.standardHeaders(Signed.STANDARD_KEY, "msg_3",
        now() - 3600, body), body);
    Answer unsigned = post("billing", Map.of("webhook-id", "msg_4"), body);

    assertThat(forged.status()).isEqualTo(401);
    assertThat(forged.body()).startsWith("no signature matches the endpoint's secret");
    assertThat(stale.status()).isEqualTo(401);
    assertThat(stale.body()).contains("s old; the receiver accepts 300 s either way");
    assertThat(unsigned).isEqualTo(new Answer(400, "the webhook-signature header is missing"));
    assertThat(inbox.get("billing", "msg_2")).isEmpty();
    assertThat(inbox.get("billing", "msg_3")).isEmpty();
    assertThat(inbox.get("billing", "msg_4")).isEmpty();
    assertThat(registry.get(OncelyInboxMetrics.REFUSED).tag("source", "billing")
        .tag("reason", "bad_signature").counter().count()).isGreaterThanOrEqualTo(1);
    assertThat(registry.get(OncelyInboxMetrics.REFUSED).tag("source", "billing")
        .tag("reason", "stale_timestamp").counter().count()).isGreaterThanOrEqualTo(1);
  }

  @Test
  void another_source_is_404_another_method_405_and_health_is_up_with_the_counts()
      throws Exception {
    Answer unknown = post("stripe", Map.of(), "{}".getBytes(UTF_8));
    Response get = http.newCall(new Request.Builder()
        .url("http://127.0.0.1:" + port + "/webhooks/billing").get().build()).execute();
    get.close();
    Health up = health.get("oncelyWebhooksHealthIndicator").health();

    assertThat(unknown).isEqualTo(new Answer(404, "no webhook source is named stripe"));
    assertThat(get.code()).isEqualTo(405);
    assertThat(get.header("Allow")).isEqualTo("POST");
    assertThat(up.getStatus()).isEqualTo(Status.UP);
    assertThat(up.getDetails()).containsKeys("queued", "processing", "dead",
        "oldestQueuedAge");
  }
}
