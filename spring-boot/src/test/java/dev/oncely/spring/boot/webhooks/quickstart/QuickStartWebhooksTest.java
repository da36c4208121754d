package dev.oncely.spring.boot.webhooks.quickstart;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.inbox.InboxListener;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The quick start of {@code docs/webhooks.md} as written: {@link QuickStartWebhooksApp} with its
 * one property ({@code quickstart-webhooks.properties}), sent the document's three {@code curl}
 * deliveries (a signed event, the same event again, a forged one). Only the port, the store files
 * and a listener that tells the test when the handler ran differ. The document's Java and
 * properties blocks are checked to be this app's source, character for character.
 */
class QuickStartWebhooksTest {
  private static final String SECRET = "whsec_test_secret";
  private static final String BODY = "{\"id\":\"evt_1\",\"type\":\"payment_intent.succeeded\","
      + "\"data\":{\"object\":{\"id\":\"pi_1\"}}}";

  @TempDir
  Path dir;

  private final OkHttpClient http = new OkHttpClient();

  /** Tells the test when the inbox handled a message (the app's own code is unchanged). */
  static final class Probe implements InboxListener {
    final BlockingQueue<InboxEvent> events = new LinkedBlockingQueue<>();

    @Override
    public void onEvent(InboxEvent event) {
      events.add(event);
    }
  }

  private static String stripeSignature(long t, String body, String secret) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(UTF_8), "HmacSHA256"));
    return "t=" + t + ",v1=" + HexFormat.of().formatHex(mac.doFinal((t + "." + body)
        .getBytes(UTF_8)));
  }

  private record Answer(int status, String text) {}

  private Answer post(int port, String signature) throws IOException {
    Request request = new Request.Builder().url("http://localhost:" + port + "/webhooks/stripe")
        .header("Stripe-Signature", signature)
        .post(RequestBody.create(BODY, MediaType.get("application/json"))).build();
    try (Response response = http.newCall(request).execute()) {
      return new Answer(response.code(), response.body().string());
    }
  }

  @Test
  void the_quick_start_fulfils_once_answers_the_redelivery_and_refuses_a_forgery()
      throws Exception {
    Probe probe = new Probe();
    try (ConfigurableApplicationContext app = new SpringApplicationBuilder(
        QuickStartWebhooksApp.class).initializers(c -> c.getBeanFactory()
            .registerSingleton("probe", probe))
        .run("--spring.config.name=quickstart-webhooks", "--server.port=0",
            "--STRIPE_WEBHOOK_SECRET=" + SECRET,
            "--oncely.webhooks.store.path=" + dir.resolve("inbox.db"),
            "--oncely.store.path=" + dir.resolve("intents.db"))) {
      int port = ((WebServerApplicationContext) app).getWebServer().getPort();
      long t = System.currentTimeMillis() / 1000;
      String signature = stripeSignature(t, BODY, SECRET);

      Answer first = post(port, signature);
      assertThat(probe.events.poll(10, TimeUnit.SECONDS)).isNotNull();
      InboxEvent handled;
      do {
        handled = probe.events.poll(10, TimeUnit.SECONDS);
        assertThat(handled).describedAs("the handler's run").isNotNull();
      } while (handled.kind() != InboxEvent.Kind.HANDLED);
      Answer again = post(port, signature);
      Answer forged = post(port, stripeSignature(t, BODY, "whsec_someone_else"));

      assertThat(first).isEqualTo(new Answer(200, "accepted"));
      assertThat(again).isEqualTo(new Answer(200, "duplicate"));
      assertThat(forged.status()).isEqualTo(401);
      assertThat(forged.text()).startsWith("no signature matches the endpoint's secret");
      assertThat(app.getBean(QuickStartWebhooksApp.Orders.class).fulfilled).hasValue(1);
    }
  }

  @Test
  void the_document_shows_this_apps_source_and_properties() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "webhooks.md"));
    String source = Files.readString(Path.of("src", "test", "java", "dev", "oncely", "spring",
        "boot", "webhooks", "quickstart", "QuickStartWebhooksApp.java"));
    String properties = Files.readString(Path.of("src", "test", "resources",
        "quickstart-webhooks.properties"));

    assertThat(block(doc, "java")).isEqualTo(source.substring(source.indexOf(
        "@SpringBootApplication")));
    assertThat(block(doc, "properties")).isEqualTo(properties);
  }

  /** The first fenced block of {@code language} after the quick start's heading. */
  private static String block(String doc, String language) {
    String start = doc.substring(doc.indexOf("## Quick start"));
    Matcher m = Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL).matcher(start);
    assertThat(m.find()).describedAs("a " + language + " block in the quick start").isTrue();
    return m.group(1);
  }
}
