package dev.oncely.client.dialect;

import dev.oncely.client.spi.StoredResponse;
import java.time.Duration;
import java.util.Locale;

/**
 * The server dialects Oncely knows, and a builder for others.
 *
 * <table>
 *   <caption>Dialects</caption>
 *   <tr><th>dialect</th><th>key header</th><th>in progress</th><th>mismatch</th><th>replay marker</th>
 *       <th>key retention</th></tr>
 *   <tr><td>{@link #ietf()}</td><td>{@code Idempotency-Key: "k"} (quoted)</td><td>409</td>
 *       <td>422</td><td>–</td><td>24 h (assumed)</td></tr>
 *   <tr><td>{@link #stripe()}</td><td>{@code Idempotency-Key: k}</td><td>409 (retried)</td>
 *       <td>400 with {@code idempotency_error}</td><td>{@code Idempotent-Replayed: true}</td>
 *       <td>24 h</td></tr>
 *   <tr><td>{@link #paypal()}</td><td>{@code PayPal-Request-Id: k}</td><td>–</td><td>–</td>
 *       <td>–</td><td>24 h (varies per API; set it from the API reference)</td></tr>
 * </table>
 *
 * <p>All dialects share the {@linkplain #standardVerdict(int) standard rules} for other statuses.
 */
public final class Dialects {
  private static final Dialect IETF = custom("ietf")
      .keyHeader("Idempotency-Key")
      .quoteKey(true)
      .inProgressStatus(409)
      .mismatchStatus(422)
      .build();

  private static final Dialect STRIPE = custom("stripe")
      .keyHeader("Idempotency-Key")
      .quoteKey(false)
      .replayHeader("Idempotent-Replayed")
      .inProgressStatus(409)
      .classifier(Dialects::stripeVerdict)
      .build();

  private static final Dialect PAYPAL = custom("paypal")
      .keyHeader("PayPal-Request-Id")
      .quoteKey(false)
      .build();

  private Dialects() {}

  /**
   * The IETF {@code draft-ietf-httpapi-idempotency-key-header} dialect (the default): the key as a
   * quoted Structured Field string in {@code Idempotency-Key}, {@code 409} = in progress, {@code 422}
   * = payload mismatch.
   */
  public static Dialect ietf() {
    return IETF;
  }

  /**
   * Stripe: plain key in {@code Idempotency-Key}; {@code 409} retried; {@code 400} whose body has
   * {@code idempotency_error} = payload mismatch; {@code Stripe-Should-Retry} honoured ({@code true}
   * retries, {@code false} stops: a server error becomes "needs reconciliation"); replays marked by
   * {@code Idempotent-Replayed: true}; keys kept at least 24 hours.
   */
  public static Dialect stripe() {
    return STRIPE;
  }

  /** PayPal: plain key in {@code PayPal-Request-Id}; standard status rules. */
  public static Dialect paypal() {
    return PAYPAL;
  }

  /**
   * Starts a custom dialect named {@code name}: by default the plain key in {@code Idempotency-Key},
   * no in-progress or mismatch status, no replay marker, 24 hours key retention.
   *
   * @throws IllegalArgumentException if {@code name} is null or blank
   */
  public static CustomDialect.Builder custom(String name) {
    return new CustomDialect.Builder(name);
  }

  /**
   * The rules every dialect shares: {@code 202} accepted; other 2xx completed; {@code 408},
   * {@code 425}, {@code 429}, {@code 500}, {@code 502}, {@code 503}, {@code 504} retried; everything
   * else (3xx the HTTP client did not follow, other 4xx, {@code 501} and other 5xx) rejected.
   */
  public static Verdict standardVerdict(int status) {
    if (status == 202) {
      return Verdict.ACCEPTED;
    }
    if (status >= 200 && status < 300) {
      return Verdict.COMPLETED;
    }
    switch (status) {
      case 408, 425, 429, 500, 502, 503, 504:
        return Verdict.RETRY;
      default:
        return Verdict.REJECTED;
    }
  }

  private static Verdict stripeVerdict(StoredResponse response) {
    int status = response.status();
    if (status == 400 && bodyMentions(response, "idempotency_error")) {
      return Verdict.PAYLOAD_MISMATCH;
    }
    if (status == 409) {
      return Verdict.IN_PROGRESS;
    }
    String shouldRetry = response.header("Stripe-Should-Retry");
    if (shouldRetry != null && status >= 300) {
      boolean retry = shouldRetry.trim().toLowerCase(Locale.ROOT).equals("true");
      if (retry) {
        return Verdict.RETRY;
      }
      return status >= 500 ? Verdict.RECONCILE : Verdict.REJECTED;
    }
    return null;
  }

  private static boolean bodyMentions(StoredResponse response, String word) {
    // Only the first 4 KiB: error bodies are small and the type comes first.
    byte[] body = response.body();
    int n = Math.min(body.length, 4096);
    return new String(body, 0, n, java.nio.charset.StandardCharsets.UTF_8).contains(word);
  }

  static Duration defaultRetention() {
    return Duration.ofHours(24);
  }
}
