package dev.oncely.server.webhook;

import static dev.oncely.server.webhook.Deliveries.alteredAt;
import static dev.oncely.server.webhook.Deliveries.refused;
import static dev.oncely.server.webhook.Deliveries.request;
import static dev.oncely.server.webhook.Deliveries.accepts;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.stripe.exception.SignatureVerificationException;
import com.stripe.model.Event;
import com.stripe.net.Webhook;
import dev.oncely.server.webhook.WebhookRefusedException.Reason;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link StripeSignatures} against Stripe's own Java library ({@code com.stripe:stripe-java}):
 * headers it generates and signatures it computes are accepted, and what we accept its {@code
 * Webhook.constructEvent} accepts too, except a timestamp from the future, which only we refuse.
 * Stripe publishes no fixed test vector; its library is the reference.
 */
class StripeSignaturesTest {
  private static final String EVENT = "{\n  \"id\": \"evt_1Q2w3E4r5T6y\",\n  \"object\": \"event\","
      + "\n  \"type\": \"charge.succeeded\",\n  \"created\": 1700000000,\n  \"data\": {\"object\":"
      + " {\"id\": \"ch_1\", \"object\": \"charge\", \"description\": \"Zoë ✓\"}}\n}";
  private static final long T = 1_700_000_000L;
  private static final SecureRandom RANDOM = new SecureRandom();

  private static String newSecret() {
    byte[] key = new byte[24];
    RANDOM.nextBytes(key);
    return "whsec_" + Base64.getEncoder().encodeToString(key);
  }

  private static WebhookRequest delivery(String body, String header) {
    return request(body.getBytes(UTF_8), "Stripe-Signature", header,
        "Content-Type", "application/json; charset=utf-8");
  }

  private static String v1(String secret, long t, String body) throws Exception {
    return Webhook.Util.computeHmacSha256(secret, t + "." + body);
  }

  private static Clock at(long seconds) {
    return Clock.fixed(Instant.ofEpochSecond(seconds), ZoneOffset.UTC);
  }

  @Test
  void a_header_generated_by_stripe_java_is_accepted_with_the_events_id_and_type()
      throws Exception {
    String secret = newSecret();
    String header = Webhook.Signature.generateSignatureHeader(EVENT, secret, T);

    VerifiedDelivery d = StripeSignatures.builder().secret(secret).build()
        .verify(delivery(EVENT, header), Instant.ofEpochSecond(T));

    assertThat(d.messageId()).isEqualTo("evt_1Q2w3E4r5T6y");
    assertThat(d.type()).isEqualTo("charge.succeeded");
    assertThat(d.signedAt()).isEqualTo(Instant.ofEpochSecond(T));
  }

  @Test
  void a_header_with_a_v1_per_rolled_secret_and_a_v0_is_accepted_by_us_and_by_stripe_java()
      throws Exception {
    // While an endpoint's secret is rolled, Stripe signs with both; test mode adds v0.
    String oldSecret = newSecret();
    String newSecret = newSecret();
    String header = "t=" + T + ",v1=" + v1(newSecret, T, EVENT) + ",v1=" + v1(oldSecret, T, EVENT)
        + ",v0=" + v1("some-test-mode-secret", T, EVENT);

    for (String secret : new String[] {oldSecret, newSecret}) {
      assertThat(StripeSignatures.builder().secret(secret).build()
          .verify(delivery(EVENT, header), Instant.ofEpochSecond(T + 10)).messageId())
          .isEqualTo("evt_1Q2w3E4r5T6y");
      Event event = Webhook.constructEvent(EVENT, header, secret, 300, at(T + 10));
      assertThat(event.getId()).isEqualTo("evt_1Q2w3E4r5T6y");
    }
  }

  @Test
  void while_rotating_the_old_and_the_new_secret_are_accepted_and_a_third_is_refused()
      throws Exception {
    String oldSecret = newSecret();
    String newSecret = newSecret();
    String third = newSecret();
    StripeSignatures verifier = StripeSignatures.builder().secret(oldSecret).secret(newSecret)
        .build();
    Instant now = Instant.ofEpochSecond(T);

    assertThat(accepts(verifier, delivery(EVENT, "t=" + T + ",v1=" + v1(oldSecret, T, EVENT)),
        now)).isTrue();
    assertThat(accepts(verifier, delivery(EVENT, "t=" + T + ",v1=" + v1(newSecret, T, EVENT)),
        now)).isTrue();
    String forged = v1(third, T, EVENT);
    refused(verifier, delivery(EVENT, "t=" + T + ",v1=" + forged), now, Reason.BAD_SIGNATURE,
        oldSecret, newSecret, third, v1(oldSecret, T, EVENT), v1(newSecret, T, EVENT));
  }

  @Test
  void what_we_decide_stripe_java_decides_the_same_except_for_a_future_timestamp()
      throws Exception {
    String secret = newSecret();
    StripeSignatures ours = StripeSignatures.builder().secret(secret).build();
    long now = T;
    Map<String, WebhookRequest> cases = new LinkedHashMap<>();
    cases.put("signed now", delivery(EVENT, "t=" + now + ",v1=" + v1(secret, now, EVENT)));
    cases.put("signed 300 s ago", delivery(EVENT,
        "t=" + (now - 300) + ",v1=" + v1(secret, now - 300, EVENT)));
    cases.put("signed 301 s ago", delivery(EVENT,
        "t=" + (now - 301) + ",v1=" + v1(secret, now - 301, EVENT)));
    cases.put("signed 300 s ahead", delivery(EVENT,
        "t=" + (now + 300) + ",v1=" + v1(secret, now + 300, EVENT)));
    cases.put("signed by another secret", delivery(EVENT,
        "t=" + now + ",v1=" + v1(newSecret(), now, EVENT)));
    cases.put("timestamp changed", delivery(EVENT,
        "t=" + (now - 1) + ",v1=" + v1(secret, now, EVENT)));
    cases.put("body altered", WebhookRequest.of(
        Deliveries.headersOf(cases.get("signed now")),
        alteredAt(EVENT.getBytes(UTF_8), 10)));
    cases.put("only v0", delivery(EVENT, "t=" + now + ",v0=" + v1(secret, now, EVENT)));

    for (Map.Entry<String, WebhookRequest> c : cases.entrySet()) {
      WebhookRequest r = c.getValue();
      assertThat(accepts(ours, r, Instant.ofEpochSecond(now))).describedAs(c.getKey())
          .isEqualTo(stripeAccepts(r, secret, now));
    }
    assertThat(accepts(ours, cases.get("signed now"), Instant.ofEpochSecond(now))).isTrue();

    // The one difference, on purpose: Stripe's library accepts any future timestamp.
    WebhookRequest future = delivery(EVENT,
        "t=" + (now + 301) + ",v1=" + v1(secret, now + 301, EVENT));
    assertThat(stripeAccepts(future, secret, now)).isTrue();
    refused(ours, future, Instant.ofEpochSecond(now), Reason.FUTURE_TIMESTAMP);
  }

  private static boolean stripeAccepts(WebhookRequest r, String secret, long now) {
    try {
      Webhook.constructEvent(new String(r.body(), UTF_8), r.header("Stripe-Signature"), secret,
          300, at(now));
      return true;
    } catch (SignatureVerificationException e) {
      return false;
    }
  }

  @Test
  void the_timestamp_is_accepted_up_to_the_tolerance_either_way_and_refused_a_second_beyond()
      throws Exception {
    String secret = newSecret();
    StripeSignatures verifier = StripeSignatures.builder().secret(secret).build();
    WebhookRequest r = delivery(EVENT, Webhook.Signature.generateSignatureHeader(EVENT, secret, T));

    assertThat(accepts(verifier, r, Instant.ofEpochSecond(T + 300))).isTrue();
    assertThat(accepts(verifier, r, Instant.ofEpochSecond(T - 300))).isTrue();
    refused(verifier, r, Instant.ofEpochSecond(T + 301), Reason.STALE_TIMESTAMP);
    refused(verifier, r, Instant.ofEpochSecond(T - 301), Reason.FUTURE_TIMESTAMP);

    StripeSignatures narrow = StripeSignatures.builder().secret(secret)
        .tolerance(Duration.ofSeconds(30)).build();
    assertThat(accepts(narrow, r, Instant.ofEpochSecond(T + 30))).isTrue();
    refused(narrow, r, Instant.ofEpochSecond(T + 31), Reason.STALE_TIMESTAMP);
    refused(narrow, r, Instant.ofEpochSecond(T - 31), Reason.FUTURE_TIMESTAMP);
  }

  @Test
  void the_key_is_the_whole_whsec_string_not_its_base64_decoding() throws Exception {
    String secret = newSecret();
    byte[] decoded = Base64.getDecoder().decode(secret.substring("whsec_".length()));
    String underDecoded = Deliveries.hex(Deliveries.hmac("HmacSHA256", decoded,
        (T + "." + EVENT).getBytes(UTF_8)));

    refused(StripeSignatures.builder().secret(secret).build(),
        delivery(EVENT, "t=" + T + ",v1=" + underDecoded), Instant.ofEpochSecond(T),
        Reason.BAD_SIGNATURE, secret);
  }

  @Test
  void a_signature_that_does_not_match_is_401_and_one_flipped_body_byte_is_enough()
      throws Exception {
    String secret = newSecret();
    StripeSignatures verifier = StripeSignatures.builder().secret(secret).build();
    String header = Webhook.Signature.generateSignatureHeader(EVENT, secret, T);
    String expected = v1(secret, T, EVENT);
    byte[] body = EVENT.getBytes(UTF_8);

    for (int i : new int[] {0, body.length / 2, body.length - 1}) {
      refused(verifier, request(alteredAt(body, i), "Stripe-Signature", header),
          Instant.ofEpochSecond(T), Reason.BAD_SIGNATURE, secret, expected);
    }
    refused(verifier, delivery(EVENT, "t=" + T + ",v1=" + "00".repeat(32)),
        Instant.ofEpochSecond(T), Reason.BAD_SIGNATURE, secret, expected);
    refused(verifier, delivery(EVENT, "t=" + T + ",v1=" + expected.substring(0, 62)),
        Instant.ofEpochSecond(T), Reason.BAD_SIGNATURE, secret, expected);
  }

  @Test
  void missing_or_malformed_headers_are_refused_400_with_their_reason() throws Exception {
    String secret = newSecret();
    StripeSignatures verifier = StripeSignatures.builder().secret(secret).build();
    Instant now = Instant.ofEpochSecond(T);
    String sig = v1(secret, T, EVENT);

    assertThat(refused(verifier, request(EVENT.getBytes(UTF_8)), now, Reason.MISSING_SIGNATURE)
        .status()).isEqualTo(400);
    refused(verifier, delivery(EVENT, " "), now, Reason.MISSING_SIGNATURE);
    refused(verifier, delivery(EVENT, "v1=" + sig), now, Reason.MISSING_TIMESTAMP);
    refused(verifier, delivery(EVENT, "t=soon,v1=" + sig), now, Reason.MALFORMED);
    refused(verifier, delivery(EVENT, "t=" + T + ",t=" + (T + 1) + ",v1=" + sig), now,
        Reason.MALFORMED);
    refused(verifier, delivery(EVENT, "t=" + T + ",v0=" + sig), now, Reason.MALFORMED);
    refused(verifier, delivery(EVENT, "t=" + T + ",v1=xyz"), now, Reason.MALFORMED);
  }

  @Test
  void a_signed_body_that_is_not_an_event_with_an_id_is_refused_400() throws Exception {
    String secret = newSecret();
    StripeSignatures verifier = StripeSignatures.builder().secret(secret).build();
    for (String body : new String[] {"{\"object\":\"event\"}", "[1,2]", "{\"id\":42}",
        "{\"id\":\"  \"}", "not json"}) {
      refused(verifier, delivery(body, Webhook.Signature.generateSignatureHeader(body, secret, T)),
          Instant.ofEpochSecond(T), Reason.MISSING_ID);
    }
  }

  @Test
  void the_builder_refuses_no_secret_an_empty_one_and_a_tolerance_that_is_not_positive() {
    assertThatThrownBy(() -> StripeSignatures.builder().build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> StripeSignatures.builder().secret(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> StripeSignatures.builder().tolerance(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
