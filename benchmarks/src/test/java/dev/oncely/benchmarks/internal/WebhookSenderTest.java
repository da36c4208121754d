package dev.oncely.benchmarks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.server.webhook.StandardWebhooks;
import dev.oncely.server.webhook.VerifiedDelivery;
import dev.oncely.server.webhook.WebhookRefusedException;
import dev.oncely.server.webhook.WebhookRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

/**
 * The webhook scenario's sender signs as Standard Webhooks specifies: the library's verifier
 * accepts its events under the shared secret and refuses them under another, so the scenario
 * measures verified events, not refusals.
 */
class WebhookSenderTest {
  private static final long NOW = 1_765_000_000L;

  private static WebhookRequest signed(WebhookSender sender, long seq) {
    byte[] body = Payloads.event(seq).getBytes(StandardCharsets.UTF_8);
    String id = sender.idOf(seq);
    return WebhookRequest.of(Map.of("webhook-id", List.of(id),
        "webhook-timestamp", List.of(Long.toString(NOW)),
        "webhook-signature", List.of(sender.sign(id, NOW, body))), body);
  }

  @Test
  void an_event_it_signs_verifies_under_the_shared_secret_with_its_id_and_type()
      throws Exception {
    byte[] key = WebhookSender.newKey();
    WebhookSender sender = new WebhookSender(new OkHttpClient(), "http://127.0.0.1:1/", key);
    StandardWebhooks verifier = StandardWebhooks.builder()
        .secret(WebhookSender.secretOf(key)).build();

    VerifiedDelivery d = verifier.verify(signed(sender, 7), Instant.ofEpochSecond(NOW));

    assertThat(d.messageId()).isEqualTo(sender.idOf(7));
    assertThat(d.type()).isEqualTo("checkout.completed");
  }

  @Test
  void an_event_it_signs_is_refused_under_another_secret() {
    WebhookSender sender = new WebhookSender(new OkHttpClient(), "http://127.0.0.1:1/",
        WebhookSender.newKey());
    StandardWebhooks other = StandardWebhooks.builder()
        .secret(WebhookSender.secretOf(WebhookSender.newKey())).build();

    assertThatThrownBy(() -> other.verify(signed(sender, 7), Instant.ofEpochSecond(NOW)))
        .isInstanceOf(WebhookRefusedException.class);
  }

  @Test
  void two_senders_never_send_the_same_message_id_and_events_are_about_one_kilobyte() {
    OkHttpClient http = new OkHttpClient();
    byte[] key = WebhookSender.newKey();

    assertThat(new WebhookSender(http, "http://x/", key).idOf(1))
        .isNotEqualTo(new WebhookSender(http, "http://x/", key).idOf(1));
    assertThat(Payloads.event(123_456).length()).isBetween(900, 1200);
  }
}
