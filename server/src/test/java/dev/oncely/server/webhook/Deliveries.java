package dev.oncely.server.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Deliveries for the verifiers' tests: requests with headers, HMACs, and refusal checks. */
final class Deliveries {
  private Deliveries() {}

  /** A request with {@code body} and the headers given as name, value, name, value... */
  static WebhookRequest request(byte[] body, String... namesAndValues) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      headers.put(namesAndValues[i], List.of(namesAndValues[i + 1]));
    }
    return WebhookRequest.of(headers, body);
  }

  /** {@code body} with its byte at {@code index} changed by one bit. */
  static byte[] alteredAt(byte[] body, int index) {
    byte[] copy = body.clone();
    copy[index] ^= 0x01;
    return copy;
  }

  /** The HMAC of the concatenated {@code parts} under {@code key}, by the JDK directly. */
  static byte[] hmac(String algorithm, byte[] key, byte[]... parts) throws Exception {
    Mac mac = Mac.getInstance(algorithm);
    mac.init(new SecretKeySpec(key, algorithm));
    for (byte[] part : parts) {
      mac.update(part);
    }
    return mac.doFinal();
  }

  static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  static String base64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  /**
   * Verifies {@code request} expecting a refusal for {@code reason}, and checks that the message
   * a sender's dashboard shows holds none of {@code secrets} (the secrets, the expected
   * signatures).
   */
  static WebhookRefusedException refused(WebhookVerifier verifier, WebhookRequest request,
      Instant now, WebhookRefusedException.Reason reason, String... secrets) {
    WebhookRefusedException e = catchThrowableOfType(WebhookRefusedException.class,
        () -> verifier.verify(request, now));
    assertThat(e).describedAs("a refusal for " + reason).isNotNull();
    assertThat(e.reason()).isEqualTo(reason);
    assertThat(e.status()).isEqualTo(reason.status());
    assertThat(e.getMessage()).isNotBlank();
    for (String secret : secrets) {
      assertThat(e.getMessage()).doesNotContain(secret);
    }
    return e;
  }

  /** Whether {@code verifier} accepts {@code request} at {@code now}. */
  static boolean accepts(WebhookVerifier verifier, WebhookRequest request, Instant now) {
    try {
      verifier.verify(request, now);
      return true;
    } catch (WebhookRefusedException e) {
      return false;
    }
  }

  /** The headers these tests use that {@code r} has, in a map to change. */
  static Map<String, List<String>> headersOf(WebhookRequest r) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (String name : List.of("webhook-id", "webhook-timestamp", "webhook-signature",
        "Stripe-Signature", "X-Hub-Signature-256", "X-GitHub-Delivery", "X-GitHub-Event", "X-Signature", "X-Timestamp",
        "X-Id", "X-Kind", "X-Acme-Signature", "X-Acme-Id", "X-Acme-Time", "Content-Type")) {
      if (!r.headers(name).isEmpty()) {
        headers.put(name, r.headers(name));
      }
    }
    return headers;
  }

  /** {@code r} without header {@code name}. */
  static WebhookRequest without(WebhookRequest r, String name) {
    Map<String, List<String>> headers = headersOf(r);
    headers.remove(name);
    return WebhookRequest.of(headers, r.body());
  }

  /** {@code r} with header {@code name} set to {@code value}. */
  static WebhookRequest with(WebhookRequest r, String name, String value) {
    Map<String, List<String>> headers = headersOf(r);
    headers.put(name, List.of(value));
    return WebhookRequest.of(headers, r.body());
  }
}
