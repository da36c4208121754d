package dev.oncely.server.webhook;

import static dev.oncely.server.webhook.Deliveries.alteredAt;
import static dev.oncely.server.webhook.Deliveries.hex;
import static dev.oncely.server.webhook.Deliveries.hmac;
import static dev.oncely.server.webhook.Deliveries.request;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.standardwebhooks.Webhook;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import dev.oncely.server.webhook.WebhookRefusedException.Reason;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@link WebhookReceiver} on a real MapDB inbox store: what it answers, what it stores, and
 * that a refusal stores nothing and is heard by the {@link WebhookListener}.
 */
class WebhookReceiverTest {
  private static final long T = 1_700_000_000L;
  private static final Clock AT_T = Clock.fixed(Instant.ofEpochSecond(T), ZoneOffset.UTC);
  private static final String STANDARD_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final String STRIPE_SECRET = "whsec_stripe_test_secret";
  private static final String GITHUB_SECRET = "github token";
  private static final String ACME_SECRET = "acme secret";
  private static final String EVENT =
      "{\"id\":\"evt_1\",\"object\":\"event\",\"type\":\"charge.succeeded\",\"amount\":1200}";

  @TempDir Path dir;
  private final BlockingQueue<InboxEvent> events = new LinkedBlockingQueue<>();
  private final List<String> refusals = new CopyOnWriteArrayList<>();
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  private final AtomicBoolean storeFails = new AtomicBoolean();
  private IntentStore store;
  private Inbox inbox;

  @BeforeEach
  void open() {
    store = new FailingCreates(MapDbIntentStore.open(dir.resolve("inbox.mapdb")), storeFails);
  }

  @AfterEach
  void close() {
    if (inbox != null) {
      inbox.close();
    }
    store.close();
  }

  /** A store whose creates fail while {@code failing} is set: a full disk, a lost database. */
  static final class FailingCreates extends ForwardingIntentStore {
    private final AtomicBoolean failing;

    FailingCreates(IntentStore delegate, AtomicBoolean failing) {
      super(delegate);
      this.failing = failing;
    }

    @Override
    public void create(IntentRecord record) {
      if (failing.get()) {
        throw new StoreException("no space left on device (injected)");
      }
      super.create(record);
    }
  }

  private WebhookReceiver receiver(Inbox.Builder inboxBuilder) {
    inbox = inboxBuilder.listener(events::add).build();
    return WebhookReceiver.builder(inbox).clock(AT_T)
        .listener((source, reason) -> refusals.add(source + ":" + reason))
        .source("standard", StandardWebhooks.builder().secret(STANDARD_SECRET).build())
        .source("stripe", StripeSignatures.builder().secret(STRIPE_SECRET).build())
        .source("github", GitHubSignatures.builder().secret(GITHUB_SECRET).build())
        .source("acme", acme())
        .build();
  }

  private WebhookReceiver receiver() {
    Inbox.Builder b = Inbox.builder(store);
    for (String source : List.of("standard", "stripe", "github", "acme")) {
      b.handler(source, m -> runs.computeIfAbsent(source + "/" + m.messageId(),
          k -> new AtomicInteger()).incrementAndGet());
    }
    return receiver(b);
  }

  private static HmacSignatures acme() {
    return HmacSignatures.builder().signatureHeader("X-Acme-Signature").prefix("sha512=")
        .algorithm(HmacSignatures.Algorithm.HMAC_SHA512).idHeader("X-Acme-Id")
        .timestampHeader("X-Acme-Time").signedContent(HmacSignatures.SignedContent.TIMESTAMP_BODY)
        .secret(ACME_SECRET).build();
  }

  static WebhookRequest stripe(String body, long t) throws Exception {
    return request(body.getBytes(UTF_8), "Content-Type", "application/json",
        "Stripe-Signature", com.stripe.net.Webhook.Signature.generateSignatureHeader(body,
            STRIPE_SECRET, t));
  }

  static WebhookRequest standard(String id, String body) throws Exception {
    return request(body.getBytes(UTF_8), "Content-Type", "application/json", "webhook-id", id,
        "webhook-timestamp", Long.toString(T), "webhook-signature",
        new Webhook(STANDARD_SECRET).sign(id, T, body));
  }

  static WebhookRequest github(String delivery, String body) throws Exception {
    return request(body.getBytes(UTF_8), "X-GitHub-Delivery", delivery, "X-GitHub-Event", "push",
        "X-Hub-Signature-256", "sha256=" + hex(hmac("HmacSHA256", GITHUB_SECRET.getBytes(UTF_8),
            body.getBytes(UTF_8))));
  }

  static WebhookRequest acme(String id, long t, String body) throws Exception {
    return request(body.getBytes(UTF_8), "X-Acme-Id", id, "X-Acme-Time", Long.toString(t),
        "X-Acme-Signature", "sha512=" + hex(hmac("HmacSHA512", ACME_SECRET.getBytes(UTF_8),
            (t + ".").getBytes(UTF_8), body.getBytes(UTF_8))));
  }

  private InboxEvent next(InboxEvent.Kind kind) throws InterruptedException {
    while (true) {
      InboxEvent e = events.poll(10, TimeUnit.SECONDS);
      assertThat(e).describedAs("an inbox event " + kind).isNotNull();
      if (e.kind() == kind) {
        return e;
      }
    }
  }

  /** Every record in the inbox's store, finished or not. */
  private List<IntentRecord> stored() {
    List<IntentRecord> all = new ArrayList<>(store.listUnfinished());
    store.forEachFinished(all::add);
    return all;
  }

  @Test
  void a_verified_delivery_is_stored_with_its_exact_bytes_and_handled_once_after_a_200()
      throws Exception {
    WebhookReceiver receiver = receiver();
    WebhookRequest delivery = stripe(EVENT, T);

    WebhookAnswer answer = receiver.receive("stripe", delivery);

    assertThat(answer).isEqualTo(new WebhookAnswer(200, "accepted"));
    next(InboxEvent.Kind.HANDLED);
    InboxMessage m = inbox.get("stripe", "evt_1").orElseThrow();
    assertThat(m.state()).isEqualTo(InboxState.HANDLED);
    assertThat(m.payload()).isEqualTo(delivery.body());
    assertThat(m.type()).isEqualTo("charge.succeeded");
    assertThat(m.contentType()).isEqualTo("application/json");
    assertThat(runs.get("stripe/evt_1")).hasValue(1);
    assertThat(refusals).isEmpty();
  }

  @Test
  void every_scheme_stores_under_its_own_source_and_message_id() throws Exception {
    WebhookReceiver receiver = receiver();

    assertThat(receiver.receive("standard", standard("msg_1", "{\"type\":\"a.b\"}")).status())
        .isEqualTo(200);
    assertThat(receiver.receive("github", github("d-1", "{}")).status()).isEqualTo(200);
    assertThat(receiver.receive("acme", acme("a-1", T, "{}")).status()).isEqualTo(200);
    for (int i = 0; i < 3; i++) {
      next(InboxEvent.Kind.HANDLED);
    }

    assertThat(inbox.get("standard", "msg_1").orElseThrow().type()).isEqualTo("a.b");
    assertThat(inbox.get("github", "d-1").orElseThrow().type()).isEqualTo("push");
    assertThat(inbox.get("acme", "a-1").orElseThrow().state()).isEqualTo(InboxState.HANDLED);
    assertThat(runs.keySet()).containsExactlyInAnyOrder("standard/msg_1", "github/d-1",
        "acme/a-1");
  }

  @Test
  void the_answer_does_not_wait_for_the_handler() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    WebhookReceiver receiver = receiver(Inbox.builder(store).handler("github", m -> {
      started.countDown();
      release.await();
    }));

    WebhookAnswer answer = assertTimeoutPreemptively(Duration.ofSeconds(10),
        () -> receiver.receive("github", github("d-1", "{}")));
    assertThat(answer.status()).isEqualTo(200);
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(release.getCount()).describedAs("the handler is still blocked").isEqualTo(1);

    release.countDown();
    next(InboxEvent.Kind.HANDLED);
  }

  @Test
  void a_redelivery_while_running_or_after_gets_the_same_200_and_the_handler_runs_once()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    AtomicInteger handled = new AtomicInteger();
    WebhookReceiver receiver = receiver(Inbox.builder(store).handler("stripe", m -> {
      handled.incrementAndGet();
      started.countDown();
      release.await();
    }));

    assertThat(receiver.receive("stripe", stripe(EVENT, T)).status()).isEqualTo(200);
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    // Stripe redelivers the same event with a fresh timestamp and signature.
    assertThat(receiver.receive("stripe", stripe(EVENT, T - 60)))
        .isEqualTo(new WebhookAnswer(200, "duplicate"));
    release.countDown();
    next(InboxEvent.Kind.HANDLED);
    assertThat(receiver.receive("stripe", stripe(EVENT, T)))
        .isEqualTo(new WebhookAnswer(200, "duplicate"));

    assertThat(handled).hasValue(1);
    assertThat(stored()).hasSize(1);
  }

  @Test
  void a_redelivery_of_a_message_still_queued_gets_the_same_200_and_stores_nothing_more()
      throws Exception {
    WebhookReceiver receiver = receiver(Inbox.builder(store).workers(0));

    assertThat(receiver.receive("standard", standard("msg_q", "{}")).text())
        .isEqualTo("accepted");
    assertThat(receiver.receive("standard", standard("msg_q", "{}")))
        .isEqualTo(new WebhookAnswer(200, "duplicate"));

    assertThat(inbox.get("standard", "msg_q").orElseThrow().state())
        .isEqualTo(InboxState.QUEUED);
    assertThat(stored()).hasSize(1);
  }

  @Test
  void a_github_delivery_replayed_later_is_a_duplicate_not_a_second_run() throws Exception {
    // GitHub signs no timestamp: the delivery id within the retention is the replay protection.
    WebhookReceiver receiver = receiver();
    WebhookRequest delivery = github("d-7", "{\"ref\":\"main\"}");
    receiver.receive("github", delivery);
    next(InboxEvent.Kind.HANDLED);

    assertThat(receiver.receive("github", delivery)).isEqualTo(new WebhookAnswer(200,
        "duplicate"));
    assertThat(runs.get("github/d-7")).hasValue(1);
  }

  static Stream<Arguments> refusals() throws Exception {
    WebhookRequest stripe = stripe(EVENT, T);
    WebhookRequest standard = standard("msg_1", "{\"type\":\"a\"}");
    WebhookRequest github = github("d-1", "{}");
    WebhookRequest acme = acme("a-1", T, "{}");
    return Stream.of(
        Arguments.of("stripe", Deliveries.without(stripe, "Stripe-Signature"),
            Reason.MISSING_SIGNATURE),
        Arguments.of("stripe", Deliveries.with(stripe, "Stripe-Signature", "v1=00"),
            Reason.MISSING_TIMESTAMP),
        Arguments.of("stripe", Deliveries.with(stripe, "Stripe-Signature", "t=" + T),
            Reason.MALFORMED),
        Arguments.of("stripe", WebhookRequest.of(Deliveries.headersOf(stripe),
            alteredAt(stripe.body(), 8)), Reason.BAD_SIGNATURE),
        Arguments.of("stripe", stripe(EVENT, T - 301), Reason.STALE_TIMESTAMP),
        Arguments.of("stripe", stripe(EVENT, T + 301), Reason.FUTURE_TIMESTAMP),
        Arguments.of("stripe", stripe("{\"type\":\"x\"}", T), Reason.MISSING_ID),
        Arguments.of("standard", Deliveries.without(standard, "webhook-id"), Reason.MISSING_ID),
        Arguments.of("standard", Deliveries.with(standard, "webhook-timestamp", String.valueOf(
            T - 3600)), Reason.BAD_SIGNATURE),
        Arguments.of("github", Deliveries.without(github, "X-Hub-Signature-256"),
            Reason.MISSING_SIGNATURE),
        Arguments.of("github", WebhookRequest.of(Deliveries.headersOf(github),
            alteredAt(github.body(), 1)), Reason.BAD_SIGNATURE),
        Arguments.of("acme", Deliveries.without(acme, "X-Acme-Time"), Reason.MISSING_TIMESTAMP),
        Arguments.of("acme", acme("a-1", T + 400, "{}"), Reason.FUTURE_TIMESTAMP));
  }

  @ParameterizedTest(name = "{0} {2}")
  @MethodSource("refusals")
  void a_refused_delivery_is_answered_with_its_reason_counted_and_nothing_is_stored(
      String source, WebhookRequest delivery, Reason reason) throws Exception {
    WebhookReceiver receiver = receiver();

    WebhookAnswer answer = receiver.receive(source, delivery);

    assertThat(answer.status()).isEqualTo(reason.status());
    assertThat(answer.stored()).isFalse();
    assertThat(answer.text()).isNotBlank().doesNotContain(STRIPE_SECRET, STANDARD_SECRET,
        GITHUB_SECRET, ACME_SECRET);
    assertThat(refusals).containsExactly(source + ":" + reason);
    assertThat(stored()).isEmpty();
    assertThat(events).isEmpty();
  }

  @Test
  void an_unknown_source_is_404_and_a_body_over_the_limit_413_and_neither_is_stored()
      throws Exception {
    inbox = Inbox.builder(store).listener(events::add).build();
    WebhookReceiver receiver = WebhookReceiver.builder(inbox).clock(AT_T).maxBodyBytes(64)
        .listener((s, r) -> refusals.add(s + ":" + r))
        .source("stripe", StripeSignatures.builder().secret(STRIPE_SECRET).build()).build();

    assertThat(receiver.receive("strpe", stripe(EVENT, T)).status()).isEqualTo(404);
    String big = "{\"id\":\"evt_big\",\"pad\":\"" + "x".repeat(64) + "\"}";
    WebhookAnswer tooBig = receiver.receive("stripe", stripe(big, T));
    assertThat(tooBig.status()).isEqualTo(413);
    assertThat(tooBig.text()).contains("64 bytes");

    assertThat(stored()).isEmpty();
    assertThat(events).isEmpty();
  }

  @Test
  void a_store_that_fails_is_503_which_the_sender_retries_into_one_run() throws Exception {
    WebhookReceiver receiver = receiver();
    storeFails.set(true);

    WebhookAnswer failed = receiver.receive("stripe", stripe(EVENT, T));
    assertThat(failed.status()).isEqualTo(503);
    assertThat(failed.text()).doesNotContain("no space left");
    assertThat(refusals).describedAs("a store failure is no refusal").isEmpty();

    storeFails.set(false);
    assertThat(stored()).isEmpty();
    assertThat(receiver.receive("stripe", stripe(EVENT, T)).text()).isEqualTo("accepted");
    next(InboxEvent.Kind.HANDLED);
    assertThat(runs.get("stripe/evt_1")).hasValue(1);
  }

  @Test
  void a_listener_that_throws_changes_no_answer() throws Exception {
    inbox = Inbox.builder(store).build();
    WebhookReceiver receiver = WebhookReceiver.builder(inbox).clock(AT_T)
        .listener((s, r) -> {
          throw new IllegalStateException("metrics are down");
        })
        .source("github", GitHubSignatures.builder().secret(GITHUB_SECRET).build()).build();

    WebhookRequest forged = Deliveries.with(github("d-1", "{}"), "X-Hub-Signature-256",
        "sha256=" + "00".repeat(32));
    assertThat(receiver.receive("github", forged).status()).isEqualTo(401);
    assertThat(stored()).isEmpty();
  }

  @Test
  void the_builder_refuses_no_source_a_source_named_twice_and_a_name_that_is_no_path_segment() {
    inbox = Inbox.builder(store).build();
    WebhookVerifier github = GitHubSignatures.builder().secret(GITHUB_SECRET).build();
    assertThatThrownBy(() -> WebhookReceiver.builder(inbox).build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> WebhookReceiver.builder(inbox).source("gh", github)
        .source("gh", github)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WebhookReceiver.builder(inbox).source("a/b", github))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WebhookReceiver.builder(inbox).maxBodyBytes(0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
