package dev.oncely.server.webhook;

import static dev.oncely.server.webhook.Deliveries.accepts;
import static dev.oncely.server.webhook.Deliveries.alteredAt;
import static dev.oncely.server.webhook.Deliveries.headersOf;
import static dev.oncely.server.webhook.Deliveries.refused;
import static dev.oncely.server.webhook.Deliveries.request;
import static dev.oncely.server.webhook.Deliveries.with;
import static dev.oncely.server.webhook.Deliveries.without;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import dev.oncely.server.webhook.WebhookRefusedException.Reason;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link StandardWebhooks} against the specification's published vector and against the
 * reference Java library ({@code com.standardwebhooks:standardwebhooks}): what it signs we accept,
 * and what we accept it verifies.
 */
class StandardWebhooksTest {
  // The published vector: standard-webhooks/standard-webhooks, libraries/java/src/test/java/com/
  // standardwebhooks/WebhookTest.java (verifyWebhookSignWorks); the same in the other libraries'
  // tests.
  private static final String VECTOR_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final String VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  private static final long VECTOR_TIMESTAMP = 1614265330L;
  private static final String VECTOR_BODY = "{\"test\": 2432232314}";
  private static final String VECTOR_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

  private static final String BODY =
      "{\"type\":\"invoice.paid\",\"data\":{\"customer\":\"Zoë ✓\",\"amount\":1200}}";
  private static final SecureRandom RANDOM = new SecureRandom();

  private static String newSecret() {
    byte[] key = new byte[24];
    RANDOM.nextBytes(key);
    return "whsec_" + Base64.getEncoder().encodeToString(key);
  }

  private static WebhookRequest signedBy(String secret, String id, long timestamp, String body)
      throws Exception {
    return request(body.getBytes(UTF_8), "webhook-id", id,
        "webhook-timestamp", Long.toString(timestamp),
        "webhook-signature", new Webhook(secret).sign(id, timestamp, body));
  }

  @Test
  void the_published_vector_is_accepted_with_the_secret_with_or_without_its_prefix()
      throws Exception {
    WebhookRequest vector = request(VECTOR_BODY.getBytes(UTF_8), "webhook-id", VECTOR_ID,
        "webhook-timestamp", Long.toString(VECTOR_TIMESTAMP), "webhook-signature",
        VECTOR_SIGNATURE);
    Instant signedAt = Instant.ofEpochSecond(VECTOR_TIMESTAMP);

    for (String secret : List.of(VECTOR_SECRET, VECTOR_SECRET.substring("whsec_".length()))) {
      VerifiedDelivery d = StandardWebhooks.builder().secret(secret).build()
          .verify(vector, signedAt.plusSeconds(1));
      assertThat(d.messageId()).isEqualTo(VECTOR_ID);
      assertThat(d.signedAt()).isEqualTo(signedAt);
      assertThat(d.type()).describedAs("the vector's body has no type").isNull();
    }
  }

  @Test
  void the_reference_library_reproduces_the_published_vector() throws Exception {
    // The library these tests sign with is the one the vector was published for.
    assertThat(new Webhook(VECTOR_SECRET).sign(VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY))
        .isEqualTo(VECTOR_SIGNATURE);
  }

  @Test
  void an_event_signed_by_the_reference_library_is_accepted_with_its_type() throws Exception {
    String secret = newSecret();
    long now = 1_700_000_000L;

    VerifiedDelivery d = StandardWebhooks.builder().secret(secret).build()
        .verify(signedBy(secret, "msg_1", now, BODY), Instant.ofEpochSecond(now));

    assertThat(d.messageId()).isEqualTo("msg_1");
    assertThat(d.type()).isEqualTo("invoice.paid");
  }

  @Test
  void what_we_accept_or_refuse_the_reference_library_accepts_or_refuses() throws Exception {
    // The library checks against the system clock, so these deliveries are signed around it,
    // well clear of the tolerance's edges.
    String secret = newSecret();
    String other = newSecret();
    long now = Instant.now().getEpochSecond();
    StandardWebhooks ours = StandardWebhooks.builder().secret(secret).build();
    Map<String, WebhookRequest> cases = new LinkedHashMap<>();
    cases.put("signed now", signedBy(secret, "msg_a", now, BODY));
    cases.put("signed 4 minutes ago", signedBy(secret, "msg_b", now - 240, BODY));
    cases.put("signed 4 minutes ahead", signedBy(secret, "msg_c", now + 240, BODY));
    cases.put("signed 6 minutes ago", signedBy(secret, "msg_d", now - 360, BODY));
    cases.put("signed 6 minutes ahead", signedBy(secret, "msg_e", now + 360, BODY));
    cases.put("signed by another secret", signedBy(other, "msg_f", now, BODY));
    WebhookRequest good = signedBy(secret, "msg_g", now, BODY);
    cases.put("body altered", WebhookRequest.of(headersOf(good), alteredAt(good.body(), 3)));
    Map<String, List<String>> otherId = headersOf(good);
    otherId.put("webhook-id", List.of("msg_h"));
    cases.put("id changed", WebhookRequest.of(otherId, good.body()));

    for (Map.Entry<String, WebhookRequest> c : cases.entrySet()) {
      WebhookRequest r = c.getValue();
      boolean weAccept = accepts(ours, r, Instant.now());
      boolean theyAccept;
      try {
        new Webhook(secret).verify(new String(r.body(), UTF_8), headersOf(r));
        theyAccept = true;
      } catch (WebhookVerificationException e) {
        theyAccept = false;
      }
      assertThat(weAccept).describedAs(c.getKey()).isEqualTo(theyAccept);
    }
    assertThat(accepts(ours, cases.get("signed now"), Instant.now())).isTrue();
  }

  @Test
  void several_v1_signatures_in_one_header_pass_when_any_one_matches() throws Exception {
    String secret = newSecret();
    WebhookRequest good = signedBy(secret, "msg_1", 1_700_000_000L, BODY);
    String valid = good.header("webhook-signature");
    String forged = "v1," + Base64.getEncoder().encodeToString(new byte[32]);
    Map<String, List<String>> headers = headersOf(good);
    headers.put("webhook-signature",
        List.of(forged + " v2," + valid.substring(3) + " v1,not*base64 " + valid + " " + forged));

    VerifiedDelivery d = StandardWebhooks.builder().secret(secret).build()
        .verify(WebhookRequest.of(headers, good.body()), Instant.ofEpochSecond(1_700_000_000L));
    assertThat(d.messageId()).isEqualTo("msg_1");
  }

  @Test
  void while_rotating_the_old_and_the_new_secret_are_accepted_and_a_third_is_refused()
      throws Exception {
    String oldSecret = newSecret();
    String newSecret = newSecret();
    String third = newSecret();
    StandardWebhooks verifier = StandardWebhooks.builder().secret(oldSecret).secret(newSecret)
        .build();
    Instant now = Instant.ofEpochSecond(1_700_000_000L);

    assertThat(verifier.verify(signedBy(oldSecret, "m1", now.getEpochSecond(), BODY), now)
        .messageId()).isEqualTo("m1");
    assertThat(verifier.verify(signedBy(newSecret, "m2", now.getEpochSecond(), BODY), now)
        .messageId()).isEqualTo("m2");
    WebhookRefusedException e = refused(verifier,
        signedBy(third, "m3", now.getEpochSecond(), BODY), now, Reason.BAD_SIGNATURE,
        oldSecret.substring(6), newSecret.substring(6), third.substring(6));
    assertThat(e.getMessage()).contains("2 secrets");
  }

  @Test
  void the_timestamp_is_accepted_up_to_the_tolerance_either_way_and_refused_a_second_beyond()
      throws Exception {
    String secret = newSecret();
    StandardWebhooks verifier = StandardWebhooks.builder().secret(secret)
        .tolerance(Duration.ofSeconds(300)).build();
    long t = 1_700_000_000L;
    WebhookRequest r = signedBy(secret, "m", t, BODY);

    assertThat(verifier.verify(r, Instant.ofEpochSecond(t + 300)).signedAt())
        .isEqualTo(Instant.ofEpochSecond(t));
    assertThat(verifier.verify(r, Instant.ofEpochSecond(t - 300)).messageId()).isEqualTo("m");
    assertThat(refused(verifier, r, Instant.ofEpochSecond(t + 301), Reason.STALE_TIMESTAMP)
        .getMessage()).contains("301 s old");
    assertThat(refused(verifier, r, Instant.ofEpochSecond(t - 301), Reason.FUTURE_TIMESTAMP)
        .getMessage()).contains("301 s ahead");
  }

  @Test
  void a_signature_that_does_not_match_is_401_and_one_flipped_body_byte_is_enough()
      throws Exception {
    String secret = newSecret();
    StandardWebhooks verifier = StandardWebhooks.builder().secret(secret).build();
    Instant now = Instant.ofEpochSecond(1_700_000_000L);
    WebhookRequest good = signedBy(secret, "m", now.getEpochSecond(), BODY);
    String signature = good.header("webhook-signature").substring(3);

    for (int i : new int[] {0, BODY.length() / 2, good.body().length - 1}) {
      refused(verifier, WebhookRequest.of(headersOf(good), alteredAt(good.body(), i)), now,
          Reason.BAD_SIGNATURE, secret.substring(6), signature);
    }
    Map<String, List<String>> forged = headersOf(good);
    forged.put("webhook-signature", List.of("v1," + Base64.getEncoder().encodeToString(
        new byte[32])));
    refused(verifier, WebhookRequest.of(forged, good.body()), now, Reason.BAD_SIGNATURE,
        secret.substring(6), signature);
  }

  @Test
  void missing_or_malformed_headers_are_refused_400_with_their_reason() throws Exception {
    String secret = newSecret();
    StandardWebhooks verifier = StandardWebhooks.builder().secret(secret).build();
    Instant now = Instant.ofEpochSecond(1_700_000_000L);
    WebhookRequest good = signedBy(secret, "m", now.getEpochSecond(), BODY);

    assertThat(refused(verifier, without(good, "webhook-signature"), now,
        Reason.MISSING_SIGNATURE).status()).isEqualTo(400);
    refused(verifier, without(good, "webhook-id"), now, Reason.MISSING_ID);
    refused(verifier, without(good, "webhook-timestamp"), now, Reason.MISSING_TIMESTAMP);
    refused(verifier, with(good, "webhook-timestamp", "1700000000.5"), now, Reason.MALFORMED);
    refused(verifier, with(good, "webhook-timestamp", "-5"), now, Reason.MALFORMED);
    refused(verifier, with(good, "webhook-signature", "v2,abc= v1a,abc"), now, Reason.MALFORMED);
    refused(verifier, with(good, "webhook-signature", "v1,*not base64*"), now, Reason.MALFORMED);
  }

  @Test
  void the_builder_refuses_no_secret_an_unreadable_secret_and_a_tolerance_that_is_not_positive() {
    assertThatThrownBy(() -> StandardWebhooks.builder().build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> StandardWebhooks.builder().secret("whsec_*not base64*"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("*not base64*");
    assertThatThrownBy(() -> StandardWebhooks.builder().secret("whsec_"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> StandardWebhooks.builder().tolerance(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
