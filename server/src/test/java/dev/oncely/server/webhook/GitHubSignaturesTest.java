package dev.oncely.server.webhook;

import static dev.oncely.server.webhook.Deliveries.alteredAt;
import static dev.oncely.server.webhook.Deliveries.hex;
import static dev.oncely.server.webhook.Deliveries.hmac;
import static dev.oncely.server.webhook.Deliveries.refused;
import static dev.oncely.server.webhook.Deliveries.request;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.server.webhook.WebhookRefusedException.Reason;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@link GitHubSignatures} against GitHub's published example. GitHub ships no Java library that
 * signs deliveries; its documented example and HMACs computed by the JDK are the references.
 */
class GitHubSignaturesTest {
  // GitHub Docs, "Validating webhook deliveries", section "Testing the webhook payload
  // validation": this secret and payload give this signature.
  private static final String VECTOR_SECRET = "It's a Secret to Everybody";
  private static final String VECTOR_BODY = "Hello, World!";
  private static final String VECTOR_SIGNATURE =
      "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

  private static final String DELIVERY = "72d3162e-cc78-11e3-81ab-4c9367dc0958";
  private static final String BODY = "{\"action\":\"opened\",\"issue\":{\"title\":\"Zoë ✓\"}}";
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private static WebhookRequest signedBy(String secret, String body) throws Exception {
    return request(body.getBytes(UTF_8), "X-Hub-Signature-256", signature(secret, body),
        "X-GitHub-Delivery", DELIVERY, "X-GitHub-Event", "issues");
  }

  private static String signature(String secret, String body) throws Exception {
    return "sha256=" + hex(hmac("HmacSHA256", secret.getBytes(UTF_8), body.getBytes(UTF_8)));
  }

  @Test
  void the_published_example_is_accepted_with_the_delivery_as_id_and_the_event_as_type()
      throws Exception {
    WebhookRequest vector = request(VECTOR_BODY.getBytes(UTF_8),
        "X-Hub-Signature-256", VECTOR_SIGNATURE, "X-GitHub-Delivery", DELIVERY,
        "X-GitHub-Event", "ping");

    VerifiedDelivery d = GitHubSignatures.builder().secret(VECTOR_SECRET).build()
        .verify(vector, NOW);

    assertThat(d.messageId()).isEqualTo(DELIVERY);
    assertThat(d.type()).isEqualTo("ping");
    assertThat(d.signedAt()).describedAs("GitHub signs no timestamp").isNull();
    assertThat(signature(VECTOR_SECRET, VECTOR_BODY)).isEqualTo(VECTOR_SIGNATURE);
  }

  @Test
  void a_delivery_is_accepted_whenever_it_arrives_since_nothing_signed_says_when() throws Exception {
    // Replays are caught by the inbox's dedupe on the delivery id, not here.
    GitHubSignatures verifier = GitHubSignatures.builder().secret("s3cret").build();
    WebhookRequest r = signedBy("s3cret", BODY);
    assertThat(verifier.verify(r, Instant.EPOCH).messageId()).isEqualTo(DELIVERY);
    assertThat(verifier.verify(r, NOW.plusSeconds(365L * 86_400)).messageId())
        .isEqualTo(DELIVERY);
  }

  @Test
  void upper_case_hex_is_accepted() throws Exception {
    WebhookRequest r = request(VECTOR_BODY.getBytes(UTF_8), "X-Hub-Signature-256",
        "sha256=" + VECTOR_SIGNATURE.substring(7).toUpperCase(java.util.Locale.ROOT),
        "X-GitHub-Delivery", DELIVERY);
    assertThat(GitHubSignatures.builder().secret(VECTOR_SECRET).build().verify(r, NOW).type())
        .isNull();
  }

  @Test
  void while_rotating_the_old_and_the_new_secret_are_accepted_and_a_third_is_refused()
      throws Exception {
    GitHubSignatures verifier = GitHubSignatures.builder().secret("old-secret")
        .secret("new-secret").build();

    assertThat(verifier.verify(signedBy("old-secret", BODY), NOW).messageId())
        .isEqualTo(DELIVERY);
    assertThat(verifier.verify(signedBy("new-secret", BODY), NOW).messageId())
        .isEqualTo(DELIVERY);
    refused(verifier, signedBy("third-secret", BODY), NOW, Reason.BAD_SIGNATURE,
        "old-secret", "new-secret", "third-secret",
        signature("old-secret", BODY).substring(7), signature("new-secret", BODY).substring(7));
  }

  @Test
  void a_signature_that_does_not_match_is_401_and_one_flipped_body_byte_is_enough()
      throws Exception {
    GitHubSignatures verifier = GitHubSignatures.builder().secret("s3cret").build();
    WebhookRequest good = signedBy("s3cret", BODY);
    String expected = signature("s3cret", BODY).substring(7);

    for (int i : new int[] {0, good.body().length / 2, good.body().length - 1}) {
      refused(verifier, WebhookRequest.of(Deliveries.headersOf(good),
          alteredAt(good.body(), i)), NOW, Reason.BAD_SIGNATURE, "s3cret", expected);
    }
    refused(verifier, Deliveries.with(good, "X-Hub-Signature-256",
        "sha256=" + "ab".repeat(32)), NOW, Reason.BAD_SIGNATURE, "s3cret", expected);
  }

  @Test
  void missing_or_malformed_headers_are_refused_400_with_their_reason() throws Exception {
    GitHubSignatures verifier = GitHubSignatures.builder().secret("s3cret").build();
    WebhookRequest good = signedBy("s3cret", BODY);
    String sha1 = "sha1=" + hex(hmac("HmacSHA1", "s3cret".getBytes(UTF_8), good.body()));

    WebhookRefusedException legacy = refused(verifier, request(good.body(),
        "X-Hub-Signature", sha1, "X-GitHub-Delivery", DELIVERY), NOW, Reason.MISSING_SIGNATURE);
    assertThat(legacy.getMessage()).contains("X-Hub-Signature-256");
    refused(verifier, Deliveries.without(good, "X-GitHub-Delivery"), NOW,
        Reason.MISSING_ID);
    refused(verifier, Deliveries.with(good, "X-GitHub-Delivery", "  "), NOW,
        Reason.MISSING_ID);
    refused(verifier, Deliveries.with(good, "X-Hub-Signature-256", sha1), NOW,
        Reason.MALFORMED);
    refused(verifier, Deliveries.with(good, "X-Hub-Signature-256", "sha256=zz"), NOW,
        Reason.MALFORMED);
    refused(verifier, Deliveries.with(good, "X-Hub-Signature-256", "sha256="), NOW,
        Reason.MALFORMED);
  }

  @Test
  void a_delivery_without_an_event_header_has_no_type() throws Exception {
    WebhookRequest r = Deliveries.without(signedBy("s3cret", BODY), "X-GitHub-Event");
    assertThat(GitHubSignatures.builder().secret("s3cret").build().verify(r, NOW).type())
        .isNull();
  }

  @Test
  void the_builder_refuses_no_secret_and_an_empty_one() {
    assertThatThrownBy(() -> GitHubSignatures.builder().build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> GitHubSignatures.builder().secret(""))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
