package dev.oncely.spring.boot.webhooks;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.oncely.server.webhook.WebhookRequest;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Deliveries signed as each scheme's sender signs them, written from the schemes' published
 * descriptions (the server module's tests check the verifiers against the senders' own
 * libraries and test vectors; here they only need to be told apart from forgeries).
 */
final class Signed {
  /** A Standard Webhooks key and its secret as a sender shows it. */
  static final byte[] STANDARD_KEY = "standard webhooks key, 32 bytes".getBytes(UTF_8);
  static final String STANDARD_SECRET = "whsec_" + Base64.getEncoder().encodeToString(
      STANDARD_KEY);
  static final String STRIPE_SECRET = "whsec_test_stripe_endpoint_secret";
  static final String GITHUB_SECRET = "a github webhook token";

  private Signed() {}

  static byte[] hmac(String algorithm, byte[] key, byte[]... parts) {
    try {
      Mac mac = Mac.getInstance(algorithm);
      mac.init(new SecretKeySpec(key, algorithm));
      for (byte[] part : parts) {
        mac.update(part);
      }
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new AssertionError(e);
    }
  }

  /** Standard Webhooks: v1,base64(HMAC-SHA256(key, id.timestamp.body)). */
  static Map<String, String> standardHeaders(byte[] key, String id, long timestamp, byte[] body) {
    String signature = "v1," + Base64.getEncoder().encodeToString(hmac("HmacSHA256", key,
        (id + "." + timestamp + ".").getBytes(UTF_8), body));
    Map<String, String> h = new LinkedHashMap<>();
    h.put("webhook-id", id);
    h.put("webhook-timestamp", Long.toString(timestamp));
    h.put("webhook-signature", signature);
    return h;
  }

  static WebhookRequest standard(byte[] key, String id, long timestamp, String body) {
    byte[] bytes = body.getBytes(UTF_8);
    return request(standardHeaders(key, id, timestamp, bytes), bytes);
  }

  /** Stripe: t=<ts>,v1=hex(HMAC-SHA256(utf8(secret), ts.body)). */
  static WebhookRequest stripe(String secret, long timestamp, String body) {
    byte[] bytes = body.getBytes(UTF_8);
    String v1 = HexFormat.of().formatHex(hmac("HmacSHA256", secret.getBytes(UTF_8),
        (timestamp + ".").getBytes(UTF_8), bytes));
    return request(Map.of("Stripe-Signature", "t=" + timestamp + ",v1=" + v1), bytes);
  }

  /** GitHub: sha256=hex(HMAC-SHA256(utf8(secret), body)). */
  static WebhookRequest github(String secret, String delivery, String event, String body) {
    byte[] bytes = body.getBytes(UTF_8);
    String sig = "sha256=" + HexFormat.of().formatHex(hmac("HmacSHA256",
        secret.getBytes(UTF_8), bytes));
    return request(Map.of("X-Hub-Signature-256", sig, "X-GitHub-Delivery", delivery,
        "X-GitHub-Event", event), bytes);
  }

  static WebhookRequest request(Map<String, String> headers, byte[] body) {
    Map<String, List<String>> h = new LinkedHashMap<>();
    headers.forEach((k, v) -> h.put(k, List.of(v)));
    h.put("Content-Type", List.of("application/json"));
    return WebhookRequest.of(h, body);
  }
}
