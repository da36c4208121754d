package dev.oncely.examples.shop;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A Standard Webhooks v1 sender, written from the specification and independent of the server
 * module's verifier: a {@code whsec_} secret of 24 random bytes, and {@code webhook-signature: v1,}
 * the base64 HMAC-SHA256 of {@code id.timestamp.body} under the secret's bytes.
 */
final class StandardWebhookSender {
  private final byte[] key;

  private StandardWebhookSender(byte[] key) {
    this.key = key;
  }

  /** A sender with a new random secret. */
  static StandardWebhookSender random() {
    byte[] key = new byte[24];
    new SecureRandom().nextBytes(key);
    return new StandardWebhookSender(key);
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
    h.put("webhook-signature", "v1," + sign(id + "." + timestamp + "." + body));
    return h;
  }

  /** An event body: {@code {"type":...,"data":{"order":...}}}. */
  static String event(String type, String order) {
    return "{\"type\":\"" + type + "\",\"timestamp\":\"2026-12-01T08:00:00Z\",\"data\":{\"order\":\""
        + order + "\"}}";
  }

  private String sign(String content) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return Base64.getEncoder().encodeToString(
          mac.doFinal(content.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
