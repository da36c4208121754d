package dev.oncely.server.servlet;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.stripe.net.Webhook;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.inbox.InboxHandler;
import dev.oncely.server.inbox.InboxState;
import dev.oncely.server.webhook.GitHubSignatures;
import dev.oncely.server.webhook.StripeSignatures;
import dev.oncely.server.webhook.WebhookReceiver;
import dev.oncely.server.webhook.WebhookRefusedException.Reason;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link WebhookServlet} in a real Tomcat at {@code /webhooks/*}, on a real MapDB inbox,
 * posted to by plain OkHttp as a sender would: what the sender sees on the wire, and what the
 * inbox stored and ran.
 */
class WebhookServletTest {
  private static final String STRIPE_SECRET = "whsec_servlet_test";
  private static final String GITHUB_SECRET = "github servlet token";
  private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");
  private static final String EVENT =
      "{\"id\":\"evt_42\",\"object\":\"event\",\"type\":\"invoice.paid\",\"amount\":1200}";
  private static final int LIMIT = 1024;

  @TempDir Path dir;
  private final OkHttpClient http = new OkHttpClient.Builder()
      .callTimeout(Duration.ofSeconds(10)).build();
  private final BlockingQueue<InboxEvent> events = new LinkedBlockingQueue<>();
  private final List<String> refusals = new CopyOnWriteArrayList<>();
  private final AtomicBoolean storeFails = new AtomicBoolean();
  private IntentStore store;
  private Inbox inbox;
  private TomcatServer server;

  @BeforeEach
  void open() {
    store = new ForwardingIntentStore(MapDbIntentStore.open(dir.resolve("inbox.mapdb"))) {
      @Override
      public void create(IntentRecord record) {
        if (storeFails.get()) {
          throw new StoreException("the disk is full (injected)");
        }
        super.create(record);
      }
    };
  }

  @AfterEach
  void close() {
    if (server != null) {
      server.close();
    }
    if (inbox != null) {
      inbox.close();
    }
    store.close();
  }

  /** Tomcat serving Stripe and GitHub deliveries at {@code /webhooks/*}, run by {@code handler}. */
  private void start(InboxHandler handler) {
    inbox = Inbox.builder(store).listener(events::add).handler("stripe", handler)
        .handler("github", handler).build();
    WebhookReceiver receiver = WebhookReceiver.builder(inbox).maxBodyBytes(LIMIT)
        .listener((source, reason) -> refusals.add(source + ":" + reason))
        .source("stripe", StripeSignatures.builder().secret(STRIPE_SECRET).build())
        .source("github", GitHubSignatures.builder().secret(GITHUB_SECRET).build())
        .build();
    server = TomcatServer.builder().servlet(new WebhookServlet(receiver))
        .mapping("/webhooks/*").start();
  }

  private record Reply(int code, String body, String allow) {}

  private Reply post(String path, String body, String... headers) throws IOException {
    return call(new Request.Builder().url(server.url(path))
        .post(RequestBody.create(body.getBytes(UTF_8), JSON)), headers);
  }

  private Reply call(Request.Builder request, String... headers) throws IOException {
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    try (Response r = http.newCall(request.build()).execute()) {
      assertThat(r.header("Content-Type")).startsWith("text/plain");
      return new Reply(r.code(), r.body().string(), r.header("Allow"));
    }
  }

  private static String stripeSignature(String body) throws Exception {
    return Webhook.Signature.generateSignatureHeader(body, STRIPE_SECRET);
  }

  private static String githubSignature(String body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(GITHUB_SECRET.getBytes(UTF_8), "HmacSHA256"));
    return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body.getBytes(UTF_8)));
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

  private List<IntentRecord> stored() {
    List<IntentRecord> all = new ArrayList<>(store.listUnfinished());
    store.forEachFinished(all::add);
    return all;
  }

  @Test
  void the_200_is_sent_while_the_handler_is_still_blocked() throws Exception {
    CountDownLatch answered = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    start(m -> {
      started.countDown();
      // Released only once the sender has its answer: an answer that waited for the handler
      // would never come, and the call would time out.
      answered.await();
    });

    Reply reply = post("/webhooks/stripe", EVENT, "Stripe-Signature", stripeSignature(EVENT));
    answered.countDown();

    assertThat(reply.code()).isEqualTo(200);
    assertThat(reply.body()).isEqualTo("accepted");
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    next(InboxEvent.Kind.HANDLED);
    assertThat(inbox.get("stripe", "evt_42").orElseThrow().payload())
        .isEqualTo(EVENT.getBytes(UTF_8));
  }

  @Test
  void a_redelivery_gets_the_same_200_and_the_handler_runs_once() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    start(m -> runs.incrementAndGet());
    String body = "{\"ref\":\"refs/heads/main\"}";
    String[] headers = {"X-Hub-Signature-256", githubSignature(body),
        "X-GitHub-Delivery", "8f1c5e1a-0000-4000-8000-000000000001", "X-GitHub-Event", "push"};

    assertThat(post("/webhooks/github", body, headers)).isEqualTo(new Reply(200, "accepted",
        null));
    next(InboxEvent.Kind.HANDLED);
    assertThat(post("/webhooks/github", body, headers)).isEqualTo(new Reply(200, "duplicate",
        null));

    assertThat(runs).hasValue(1);
    assertThat(inbox.get("github", "8f1c5e1a-0000-4000-8000-000000000001").orElseThrow()
        .state()).isEqualTo(InboxState.HANDLED);
    assertThat(stored()).hasSize(1);
  }

  @Test
  void a_forged_or_unreadable_delivery_is_refused_with_its_reason_and_nothing_is_stored()
      throws Exception {
    start(m -> {
      throw new AssertionError("a refused delivery ran");
    });
    String forged = EVENT.replace("1200", "9999");

    Reply bad = post("/webhooks/stripe", forged, "Stripe-Signature", stripeSignature(EVENT));
    assertThat(bad.code()).isEqualTo(401);
    assertThat(bad.body()).contains("no signature matches").doesNotContain(STRIPE_SECRET);
    Reply missing = post("/webhooks/stripe", EVENT);
    assertThat(missing.code()).isEqualTo(400);
    assertThat(missing.body()).contains("Stripe-Signature");

    assertThat(refusals).containsExactly("stripe:" + Reason.BAD_SIGNATURE,
        "stripe:" + Reason.MISSING_SIGNATURE);
    assertThat(stored()).isEmpty();
    assertThat(events).isEmpty();
  }

  @Test
  void only_post_is_served_and_only_to_a_known_source() throws Exception {
    start(m -> { });

    Reply get = call(new Request.Builder().url(server.url("/webhooks/stripe")).get());
    assertThat(get.code()).isEqualTo(405);
    assertThat(get.allow()).isEqualTo("POST");
    for (String path : List.of("/webhooks/strpe", "/webhooks/", "/webhooks",
        "/webhooks/stripe/extra")) {
      Reply r = post(path, EVENT, "Stripe-Signature", stripeSignature(EVENT));
      assertThat(r.code()).describedAs(path).isEqualTo(404);
    }
    assertThat(stored()).isEmpty();
    assertThat(refusals).isEmpty();
  }

  @Test
  void a_body_over_the_limit_is_413_whether_its_length_is_declared_or_chunked() throws Exception {
    start(m -> { });
    String big = "{\"id\":\"evt_big\",\"pad\":\"" + "x".repeat(LIMIT) + "\"}";
    String signature = stripeSignature(big);

    Reply declared = post("/webhooks/stripe", big, "Stripe-Signature", signature);
    assertThat(declared.code()).isEqualTo(413);
    assertThat(declared.body()).contains(LIMIT + " bytes");
    RequestBody chunked = new RequestBody() {
      @Override
      public MediaType contentType() {
        return JSON;
      }

      @Override
      public long contentLength() {
        return -1;
      }

      @Override
      public void writeTo(BufferedSink sink) throws IOException {
        sink.writeUtf8(big);
      }
    };
    Reply streamed = call(new Request.Builder().url(server.url("/webhooks/stripe"))
        .post(chunked), "Stripe-Signature", signature);
    assertThat(streamed.code()).isEqualTo(413);

    assertThat(stored()).isEmpty();
  }

  @Test
  void a_store_that_fails_is_503_and_the_senders_retry_is_stored_and_run_once() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    start(m -> runs.incrementAndGet());
    storeFails.set(true);

    Reply failed = post("/webhooks/stripe", EVENT, "Stripe-Signature", stripeSignature(EVENT));
    assertThat(failed.code()).isEqualTo(503);
    assertThat(failed.body()).contains("retry").doesNotContain("disk");
    assertThat(stored()).isEmpty();

    storeFails.set(false);
    assertThat(post("/webhooks/stripe", EVENT, "Stripe-Signature", stripeSignature(EVENT))
        .code()).isEqualTo(200);
    next(InboxEvent.Kind.HANDLED);
    assertThat(runs).hasValue(1);
  }
}
