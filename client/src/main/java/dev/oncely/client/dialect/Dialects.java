package dev.oncely.client.dialect;

import dev.oncely.client.StoredResponse;
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
 *       <td>422</td><td>–</td><td>1 h (the draft publishes none: an assumption on the short,
 *       safe side)</td></tr>
 *   <tr><td>{@link #stripe()}</td><td>{@code Idempotency-Key: k}</td><td>409 (retried)</td>
 *       <td>400 with {@code idempotency_error}</td><td>{@code Idempotent-Replayed: true}</td>
 *       <td>24 h (Stripe API reference, "Idempotent requests": keys are pruned after at least
 *       24 hours)</td></tr>
 *   <tr><td>{@link #paypal()}</td><td>{@code PayPal-Request-Id: k}</td><td>–</td><td>–</td>
 *       <td>–</td><td>6 h (PayPal Orders v2 reference, {@code PayPal-Request-Id}: stored for
 *       6 hours, up to 72 by arrangement)</td></tr>
 * </table>
 *
 * <p>Key retention errs on the short side everywhere: an intent that may have been delivered and
 * is older than the retention is never resent (it goes to reconciliation), because a resend after
 * the server forgot the key is a second effect. Set it from your server's documentation.
 *
 * <p>All dialects share the {@linkplain #standardVerdict(int) standard rules} for other statuses,
 * and the engine's rules that no dialect can change: no {@code 5xx} is a final refusal, redirects
 * are never followed by the HTTP client, answers of a status URL are about the status resource,
 * and a {@code 4xx} after a maybe-delivered attempt is final only if {@link
 * Dialect#trustsRefusalAfterDelivery(int)} says so (docs/client.md has the whole decision table).
 */
public final class Dialects {
  /**
   * The {@code 4xx} answers every built-in dialect trusts as final refusals after an earlier
   * attempt of the same intent may have reached the server: <em>none</em>. Such an answer may come
   * from a gateway, a validation layer in front of the idempotency check, expired credentials, or
   * a server that lost its record, while the first attempt already had its effect. After a
   * maybe-delivered attempt a refusal is final only when the server marks it as the replay of the
   * stored answer to the first attempt ({@link Dialect#isReplay}), or a custom dialect lists the
   * status with {@link CustomDialect.Builder#trustedRefusals}.
   */
  public static final java.util.Set<Integer> TRUSTED_REFUSALS = java.util.Set.of();

  /** Default of {@link Dialect#maxBlindResends()}. */
  public static final int DEFAULT_MAX_BLIND_RESENDS = 3;

  /** Key retention assumed where a server publishes none (the IETF draft, custom dialects). */
  public static final Duration DEFAULT_KEY_RETENTION = Duration.ofHours(1);

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
      .keyRetention(Duration.ofHours(24))
      .build();

  private static final Dialect PAYPAL = custom("paypal")
      .keyHeader("PayPal-Request-Id")
      .quoteKey(false)
      .keyRetention(Duration.ofHours(6))
      .build();

  private Dialects() {}

  /**
   * The IETF {@code draft-ietf-httpapi-idempotency-key-header} dialect (the default): the key as a
   * quoted Structured Field string in {@code Idempotency-Key}, {@code 409} = in progress, {@code 422}
   * = payload mismatch, keys assumed kept {@link #DEFAULT_KEY_RETENTION}.
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

  /** PayPal: plain key in {@code PayPal-Request-Id}; standard status rules; keys kept 6 hours. */
  public static Dialect paypal() {
    return PAYPAL;
  }

  /**
   * Starts a custom dialect named {@code name}: by default the plain key in {@code Idempotency-Key},
   * no in-progress or mismatch status, no replay marker, {@link #DEFAULT_KEY_RETENTION} key
   * retention.
   *
   * @throws IllegalArgumentException if {@code name} is null or blank
   */
  public static CustomDialect.Builder custom(String name) {
    return new CustomDialect.Builder(name);
  }

  /**
   * The rules every dialect shares: {@code 202} accepted; other 2xx completed; {@code 1xx},
   * {@code 408}, {@code 425}, {@code 429} and <em>every</em> {@code 5xx} (gateway answers such as
   * Cloudflare's 520-530 and 598/599 are sent after the origin may have processed the request)
   * retried; other 4xx rejected. {@code 3xx} never reaches a dialect's verdict: the engine's
   * redirect rules judge it (here it reads as rejected).
   */
  public static Verdict standardVerdict(int status) {
    if (status == 202) {
      return Verdict.ACCEPTED;
    }
    if (status >= 200 && status < 300) {
      return Verdict.COMPLETED;
    }
    if (status < 200 || status >= 500) {
      return Verdict.RETRY;
    }
    switch (status) {
      case 408, 425, 429:
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
      return status >= 500 ? Verdict.RECONCILE : null;
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
    return DEFAULT_KEY_RETENTION;
  }
}
