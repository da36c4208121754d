package dev.oncely.benchmarks.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * A webhook sender as Standard Webhooks v1 specifies it: each event is a ~1 KB JSON body ({@link
 * Payloads#event}) with a fresh {@code webhook-id}, the current time in {@code webhook-timestamp}
 * and {@code webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>} under the
 * endpoint's secret, posted with OkHttp. An answer counts as accepted when it is {@code 200} with
 * the body {@code accepted} (a duplicate's {@code 200} says {@code duplicate}); {@link
 * #accepted()} counts every such answer, including those that come after a measured window
 * closed, so the harness can check that each was handled.
 *
 * <p>Thread-safe: each thread signs with a {@link Mac} of its own.
 */
public final class WebhookSender {
  private static final MediaType JSON = MediaType.get("application/json");

  private final OkHttpClient http;
  private final String url;
  private final byte[] key;
  private final String idPrefix;
  private final ThreadLocal<Mac> macs;
  private final AtomicLong next = new AtomicLong();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicReference<String> firstOther = new AtomicReference<>();

  /**
   * A sender posting to {@code url}, signing with {@code key}; its message ids start with a
   * random prefix of its own, so two senders never send the same id.
   */
  public WebhookSender(OkHttpClient http, String url, byte[] key) {
    this.http = Objects.requireNonNull(http, "http");
    this.url = Objects.requireNonNull(url, "url");
    this.key = key.clone();
    byte[] prefix = new byte[5];
    new SecureRandom().nextBytes(prefix);
    this.idPrefix = "msg_" + HexFormat.of().formatHex(prefix) + "_";
    this.macs = ThreadLocal.withInitial(() -> {
      try {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(this.key, "HmacSHA256"));
        return mac;
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("HmacSHA256 is required of every JVM", e);
      }
    });
  }

  /** A new random 24-byte signing key. */
  public static byte[] newKey() {
    byte[] key = new byte[24];
    new SecureRandom().nextBytes(key);
    return key;
  }

  /** The secret as a Standard Webhooks sender shows it: {@code whsec_} and base64. */
  public static String secretOf(byte[] key) {
    return "whsec_" + Base64.getEncoder().encodeToString(key);
  }

  /** The {@code v1,<base64>} signature of {@code id.timestamp.body} under this sender's key. */
  public String sign(String id, long timestamp, byte[] body) {
    Mac mac = macs.get();
    mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
    return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
  }

  /** The message id of event {@code seq}. */
  public String idOf(long seq) {
    return idPrefix + seq;
  }

  /**
   * Signs and posts this sender's next event (a new message id each time, whatever the load's
   * sequence numbers: a load run starts them at 0 each time).
   *
   * @return whether it was answered {@code 200 accepted}
   */
  public boolean send() throws Exception {
    long seq = next.getAndIncrement();
    String id = idOf(seq);
    long timestamp = System.currentTimeMillis() / 1000;
    byte[] body = Payloads.event(seq).getBytes(StandardCharsets.UTF_8);
    Request request = new Request.Builder()
        .url(url)
        .header("webhook-id", id)
        .header("webhook-timestamp", Long.toString(timestamp))
        .header("webhook-signature", sign(id, timestamp, body))
        .post(RequestBody.create(body, JSON))
        .build();
    try (Response response = http.newCall(request).execute()) {
      String text = response.body().string();
      boolean ok = response.code() == 200 && "accepted".equals(text);
      if (ok) {
        accepted.incrementAndGet();
      } else {
        firstOther.compareAndSet(null, response.code() + " " + text);
      }
      return ok;
    }
  }

  /** The first answer that was not {@code 200 accepted} (status and text), or null. */
  public String firstOtherAnswer() {
    return firstOther.get();
  }

  /** Answers {@code 200 accepted} received so far, in or out of a window. */
  public long accepted() {
    return accepted.get();
  }
}
