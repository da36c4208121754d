package dev.oncely.server.webhook;

import static dev.oncely.server.webhook.Deliveries.alteredAt;
import static dev.oncely.server.webhook.Deliveries.base64;
import static dev.oncely.server.webhook.Deliveries.hex;
import static dev.oncely.server.webhook.Deliveries.hmac;
import static dev.oncely.server.webhook.Deliveries.refused;
import static dev.oncely.server.webhook.Deliveries.request;
import static dev.oncely.server.webhook.Deliveries.accepts;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.stripe.net.Webhook;
import dev.oncely.server.webhook.HmacSignatures.Algorithm;
import dev.oncely.server.webhook.HmacSignatures.Encoding;
import dev.oncely.server.webhook.HmacSignatures.SignedContent;
import dev.oncely.server.webhook.WebhookRefusedException.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * {@link HmacSignatures}, a sender's own scheme: RFC 4231's published HMAC vectors in each
 * encoding and algorithm, the published GitHub and Standard Webhooks vectors through the generic
 * scheme, a {@code timestamp.body} form signed by stripe-java's HMAC, and every check in its
 * documented order.
 */
class HmacSignaturesTest {
  // RFC 4231, section 4.3 (Test Case 2).
  private static final String RFC_KEY = "Jefe";
  private static final String RFC_DATA = "what do ya want for nothing?";
  private static final String RFC_SHA256 =
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
  private static final String RFC_SHA512 = "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd6102"
      + "70cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737";

  private static final Instant NOW = Instant.ofEpochSecond(1_700_000_000L);
  private static final String BODY = "{\"event_id\":\"ev-9\",\"kind\":\"order.paid\",\"who\":\"Zoë\"}";

  private static HmacSignatures.Builder bodyScheme() {
    return HmacSignatures.builder().signatureHeader("X-Signature").idHeader("X-Id");
  }

  @Test
  void the_rfc_4231_vectors_verify_with_either_algorithm_in_either_encoding() throws Exception {
    for (Algorithm algorithm : Algorithm.values()) {
      byte[] mac = HexFormat.of().parseHex(algorithm == Algorithm.HMAC_SHA256 ? RFC_SHA256
          : RFC_SHA512);
      for (Encoding encoding : Encoding.values()) {
        String written = encoding == Encoding.HEX ? hex(mac) : base64(mac);
        HmacSignatures scheme = bodyScheme().algorithm(algorithm).encoding(encoding)
            .secret(RFC_KEY).build();
        WebhookRequest r = request(RFC_DATA.getBytes(UTF_8), "X-Signature", written, "X-Id", "1");
        assertThat(scheme.verify(r, NOW).messageId()).describedAs(algorithm + " " + encoding)
            .isEqualTo("1");
        // The other algorithm's signature, well formed, never matches.
        HmacSignatures other = bodyScheme().encoding(encoding).secret(RFC_KEY)
            .algorithm(algorithm == Algorithm.HMAC_SHA256 ? Algorithm.HMAC_SHA512
                : Algorithm.HMAC_SHA256).build();
        refused(other, r, NOW, Reason.BAD_SIGNATURE, RFC_KEY, written);
      }
    }
  }

  @Test
  void described_as_githubs_scheme_it_accepts_githubs_published_example() throws Exception {
    // GitHub Docs, "Validating webhook deliveries" (see GitHubSignaturesTest).
    HmacSignatures github = HmacSignatures.builder().signatureHeader("X-Hub-Signature-256")
        .prefix("sha256=").idHeader("X-GitHub-Delivery").typeHeader("X-GitHub-Event")
        .secret("It's a Secret to Everybody").build();
    WebhookRequest r = request("Hello, World!".getBytes(UTF_8), "X-Hub-Signature-256",
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
        "X-GitHub-Delivery", "d-1", "X-GitHub-Event", "ping");

    VerifiedDelivery d = github.verify(r, NOW);
    assertThat(d.messageId()).isEqualTo("d-1");
    assertThat(d.type()).isEqualTo("ping");
    assertThat(d.signedAt()).isNull();
  }

  @Test
  void described_as_standard_webhooks_it_accepts_the_published_vector() throws Exception {
    // The Standard Webhooks vector (see StandardWebhooksTest): id.timestamp.body, base64, "v1,".
    HmacSignatures standard = HmacSignatures.builder().signatureHeader("webhook-signature")
        .prefix("v1,").separator(" ").encoding(Encoding.BASE64).idHeader("webhook-id")
        .timestampHeader("webhook-timestamp").signedContent(SignedContent.ID_TIMESTAMP_BODY)
        .typeMember("type")
        .secret(Base64.getDecoder().decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")).build();
    WebhookRequest r = request("{\"test\": 2432232314}".getBytes(UTF_8),
        "webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek", "webhook-timestamp", "1614265330",
        "webhook-signature", "v2,abc v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");

    VerifiedDelivery d = standard.verify(r, Instant.ofEpochSecond(1614265330L));
    assertThat(d.messageId()).isEqualTo("msg_p5jXN8AQM9LWM0D4loKWxJek");
    assertThat(d.signedAt()).isEqualTo(Instant.ofEpochSecond(1614265330L));
    refused(standard, r, Instant.ofEpochSecond(1614265330L + 301), Reason.STALE_TIMESTAMP);
  }

  private static HmacSignatures timestamped(Duration tolerance) {
    return HmacSignatures.builder().signatureHeader("X-Signature").prefix("v1=")
        .idMember("event_id").typeMember("kind").timestampHeader("X-Timestamp")
        .signedContent(SignedContent.TIMESTAMP_BODY).tolerance(tolerance)
        .secret("whsec_acme").build();
  }

  private static WebhookRequest timestampedDelivery(long t, String body) throws Exception {
    // stripe-java's HMAC: the same timestamp.body form, keyed by the secret's UTF-8 bytes.
    return request(body.getBytes(UTF_8), "X-Timestamp", Long.toString(t),
        "X-Signature", "v1=" + Webhook.Util.computeHmacSha256("whsec_acme", t + "." + body));
  }

  @Test
  void a_timestamp_body_scheme_reads_the_id_and_type_from_the_body() throws Exception {
    VerifiedDelivery d = timestamped(Duration.ofMinutes(5))
        .verify(timestampedDelivery(NOW.getEpochSecond(), BODY), NOW);

    assertThat(d.messageId()).isEqualTo("ev-9");
    assertThat(d.type()).isEqualTo("order.paid");
    assertThat(d.signedAt()).isEqualTo(NOW);
  }

  @Test
  void the_timestamp_is_accepted_up_to_the_tolerance_either_way_and_refused_a_second_beyond()
      throws Exception {
    HmacSignatures scheme = timestamped(Duration.ofSeconds(120));
    WebhookRequest r = timestampedDelivery(NOW.getEpochSecond(), BODY);

    assertThat(accepts(scheme, r, NOW.plusSeconds(120))).isTrue();
    assertThat(accepts(scheme, r, NOW.minusSeconds(120))).isTrue();
    refused(scheme, r, NOW.plusSeconds(121), Reason.STALE_TIMESTAMP);
    refused(scheme, r, NOW.minusSeconds(121), Reason.FUTURE_TIMESTAMP);
    // The timestamp is signed: moving it breaks the signature.
    refused(scheme, Deliveries.with(r, "X-Timestamp",
        Long.toString(NOW.getEpochSecond() + 1)), NOW, Reason.BAD_SIGNATURE);
  }

  @Test
  void the_id_is_read_from_the_body_only_after_the_signature_holds() throws Exception {
    HmacSignatures scheme = timestamped(Duration.ofMinutes(5));
    String noId = "{\"kind\":\"order.paid\"}";

    refused(scheme, timestampedDelivery(NOW.getEpochSecond(), noId), NOW, Reason.MISSING_ID);
    WebhookRequest forged = request(noId.getBytes(UTF_8), "X-Timestamp",
        Long.toString(NOW.getEpochSecond()), "X-Signature", "v1=" + "00".repeat(32));
    refused(scheme, forged, NOW, Reason.BAD_SIGNATURE);
  }

  @Test
  void several_signatures_in_one_header_pass_when_any_one_matches_and_other_prefixes_are_ignored()
      throws Exception {
    HmacSignatures scheme = bodyScheme().prefix("v1=").separator(",").secret("k").build();
    String good = hex(hmac("HmacSHA256", "k".getBytes(UTF_8), BODY.getBytes(UTF_8)));
    String header = "v1=" + "11".repeat(32) + ", v0=" + good + ",v1=nothex, v1=" + good;

    assertThat(scheme.verify(request(BODY.getBytes(UTF_8), "X-Signature", header, "X-Id", "a"),
        NOW).messageId()).isEqualTo("a");
    refused(scheme, request(BODY.getBytes(UTF_8), "X-Signature", "v0=" + good, "X-Id", "a"),
        NOW, Reason.MALFORMED, good);
    // Without a separator the whole value is one signature.
    HmacSignatures single = bodyScheme().prefix("v1=").secret("k").build();
    refused(single, request(BODY.getBytes(UTF_8), "X-Signature", "v1=" + good + ",v1=" + good,
        "X-Id", "a"), NOW, Reason.MALFORMED, good);
  }

  @Test
  void while_rotating_the_old_and_the_new_secret_are_accepted_and_a_third_is_refused()
      throws Exception {
    HmacSignatures scheme = bodyScheme().encoding(Encoding.BASE64).secret("old")
        .secret("new".getBytes(UTF_8)).build();
    for (String secret : new String[] {"old", "new"}) {
      WebhookRequest r = request(BODY.getBytes(UTF_8), "X-Id", "a", "X-Signature",
          base64(hmac("HmacSHA256", secret.getBytes(UTF_8), BODY.getBytes(UTF_8))));
      assertThat(accepts(scheme, r, NOW)).describedAs(secret).isTrue();
    }
    String third = base64(hmac("HmacSHA256", "third".getBytes(UTF_8), BODY.getBytes(UTF_8)));
    refused(scheme, request(BODY.getBytes(UTF_8), "X-Id", "a", "X-Signature", third), NOW,
        Reason.BAD_SIGNATURE, "old", "new", "third");
  }

  @Test
  void a_signature_that_does_not_match_is_401_and_one_flipped_body_byte_is_enough()
      throws Exception {
    HmacSignatures scheme = bodyScheme().secret("k").build();
    String good = hex(hmac("HmacSHA256", "k".getBytes(UTF_8), BODY.getBytes(UTF_8)));
    byte[] body = BODY.getBytes(UTF_8);
    for (int i : new int[] {0, body.length / 2, body.length - 1}) {
      refused(scheme, request(alteredAt(body, i), "X-Signature", good, "X-Id", "a"), NOW,
          Reason.BAD_SIGNATURE, good);
    }
  }

  @Test
  void missing_or_malformed_headers_are_refused_400_with_their_reason() throws Exception {
    HmacSignatures scheme = HmacSignatures.builder().signatureHeader("X-Signature")
        .idHeader("X-Id").timestampHeader("X-Timestamp")
        .signedContent(SignedContent.ID_TIMESTAMP_BODY).secret("k").build();
    String t = Long.toString(NOW.getEpochSecond());
    String sig = hex(hmac("HmacSHA256", "k".getBytes(UTF_8), ("a." + t + ".").getBytes(UTF_8),
        BODY.getBytes(UTF_8)));
    WebhookRequest good = request(BODY.getBytes(UTF_8), "X-Signature", sig, "X-Id", "a",
        "X-Timestamp", t);
    assertThat(scheme.verify(good, NOW).messageId()).isEqualTo("a");

    refused(scheme, request(good.body(), "X-Id", "a", "X-Timestamp", t), NOW,
        Reason.MISSING_SIGNATURE);
    refused(scheme, request(good.body(), "X-Signature", sig, "X-Timestamp", t), NOW,
        Reason.MISSING_ID);
    refused(scheme, request(good.body(), "X-Signature", sig, "X-Id", "a"), NOW,
        Reason.MISSING_TIMESTAMP);
    refused(scheme, request(good.body(), "X-Signature", sig, "X-Id", "a", "X-Timestamp",
        t + "000x"), NOW, Reason.MALFORMED);
    refused(scheme, request(good.body(), "X-Signature", "sha256=" + sig, "X-Id", "a",
        "X-Timestamp", t), NOW, Reason.MALFORMED);
  }

  @Test
  void the_type_comes_from_its_header_when_one_is_named() throws Exception {
    HmacSignatures scheme = bodyScheme().typeHeader("X-Kind").secret("k").build();
    String good = hex(hmac("HmacSHA256", "k".getBytes(UTF_8), BODY.getBytes(UTF_8)));
    assertThat(scheme.verify(request(BODY.getBytes(UTF_8), "X-Signature", good, "X-Id", "a",
        "X-Kind", " order.paid "), NOW).type()).isEqualTo("order.paid");
    assertThat(scheme.verify(request(BODY.getBytes(UTF_8), "X-Signature", good, "X-Id", "a"),
        NOW).type()).isNull();
  }

  @Test
  void build_refuses_a_scheme_that_could_not_verify_or_would_protect_nothing() {
    assertThatThrownBy(() -> HmacSignatures.builder().idHeader("X-Id").secret("k").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("signatureHeader");
    assertThatThrownBy(() -> HmacSignatures.builder().signatureHeader("S").secret("k").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("idHeader or idMember");
    assertThatThrownBy(() -> bodyScheme().idMember("id").secret("k").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("exactly one");
    assertThatThrownBy(() -> bodyScheme().typeHeader("T").typeMember("type").secret("k").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("not both");
    assertThatThrownBy(() -> bodyScheme().build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("secret");
    assertThatThrownBy(() -> bodyScheme().signedContent(SignedContent.TIMESTAMP_BODY)
        .secret("k").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("timestampHeader");
    assertThatThrownBy(() -> bodyScheme().timestampHeader("X-Timestamp").secret("k").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("protects nothing");
    assertThatThrownBy(() -> HmacSignatures.builder().signatureHeader("S").idMember("id")
        .timestampHeader("X-Timestamp").signedContent(SignedContent.ID_TIMESTAMP_BODY)
        .secret("k").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("idHeader");
    assertThatThrownBy(() -> bodyScheme().prefix("v1,").separator(",").secret("k").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("separator");
  }

  @Test
  void setters_refuse_values_that_mean_nothing() {
    assertThatThrownBy(() -> HmacSignatures.builder().signatureHeader(" "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HmacSignatures.builder().idMember(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HmacSignatures.builder().separator(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HmacSignatures.builder().secret(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HmacSignatures.builder().secret(new byte[0]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HmacSignatures.builder().tolerance(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
