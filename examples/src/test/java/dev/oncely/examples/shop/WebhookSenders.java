package dev.oncely.examples.shop;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Senders of signed webhook deliveries, written from each scheme's documentation and independent
 * of the server module's verifiers: the headers a Standard Webhooks, Stripe or GitHub sender puts
 * on a body.
 */
final class WebhookSenders {
  private WebhookSenders() {}

  /**
   * A Standard Webhooks v1 sender: a {@code whsec_} secret of 24 random bytes, and {@code
   * webhook-signature: v1,} the base64 HMAC-SHA256 of {@code id.timestamp.body} under the
   * secret's bytes.
   */
  static final class Standard {
    private final byte[] key;

    private Standard(byte[] key) {
      this.key = key;
    }

    /** A sender with a new random secret. */
    static Standard random() {
      byte[] key = new byte[24];
      new SecureRandom().nextBytes(key);
      return new Standard(key);
    }

    /** The secret as the sender's dashboard shows it: {@code whsec_} and base64. */
    String secret() {
      return "whsec_" + Base64.getEncoder().encodeToString(key);
    }

    /** The headers of a delivery of {@code body} as event {@code id}, signed at {@code at}. */
    Map<String, String> headers(String id, Instant at, String body) {
      String timestamp = Long.toString(at.getEpochSecond());
      Map<String, String> h = new LinkedHashMap<>();
      h.put("webhook-id", id);
      h.put("webhook-timestamp", timestamp);
      h.put("webhook-signature", "v1," + Base64.getEncoder().encodeToString(
          hmac(key, id + "." + timestamp + "." + body)));
      return h;
    }
  }

  /**
   * Stripe's headers: {@code Stripe-Signature: t=<seconds>,v1=<hex>}, the HMAC-SHA256 of {@code
   * t.body} keyed by the whole {@code whsec_...} string.
   */
  static Map<String, String> stripe(String secret, Instant at, String body) {
    String t = Long.toString(at.getEpochSecond());
    return Map.of("Stripe-Signature", "t=" + t + ",v1=" + HexFormat.of().formatHex(
        hmac(secret.getBytes(StandardCharsets.UTF_8), t + "." + body)));
  }

  /**
   * GitHub's headers: {@code X-Hub-Signature-256: sha256=<hex>}, the HMAC-SHA256 of the body
   * keyed by the secret token, with the delivery id and the event's name.
   */
  static Map<String, String> github(String secret, String delivery, String event, String body) {
    return Map.of("X-Hub-Signature-256", "sha256=" + HexFormat.of().formatHex(
        hmac(secret.getBytes(StandardCharsets.UTF_8), body)), "X-GitHub-Delivery", delivery,
        "X-GitHub-Event", event);
  }

  /** An event body: {@code {"type":...,"data":{"order":...}}}. */
  static String event(String type, String order) {
    return "{\"type\":\"" + type + "\",\"timestamp\":\"2026-12-01T08:00:00Z\",\"data\":{\"order\":\""
        + order + "\"}}";
  }

  private static byte[] hmac(byte[] key, String content) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(content.getBytes(StandardCharsets.UTF_8));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
