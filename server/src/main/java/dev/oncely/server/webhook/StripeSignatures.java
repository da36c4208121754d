package dev.oncely.server.webhook;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Stripe's webhook signatures: header {@code Stripe-Signature: t=<seconds>,v1=<hex>[,v1=<hex>...]}
 * (other schemes, such as test mode's {@code v0}, are ignored), the HMAC-SHA256 of {@code t.body}
 * keyed by the endpoint secret's UTF-8 bytes: the whole {@code whsec_...} string, as Stripe's
 * libraries key it. Any one {@code v1} signature matching any secret is enough (Stripe sends one
 * per active secret while an endpoint's secret is rolled). The message id is the event's
 * top-level {@code id}, the type its top-level {@code type}.
 *
 * <p>The timestamp is checked within the tolerance in both directions (default {@link
 * #DEFAULT_TOLERANCE}, Stripe's own): unlike Stripe's libraries, which refuse only old
 * timestamps, a timestamp ahead of the receiver's clock by more than the tolerance is refused
 * ({@code FUTURE_TIMESTAMP}), so a captured delivery cannot be given a far-future life.
 *
 * <p>Immutable and thread-safe.
 */
public final class StripeSignatures implements WebhookVerifier {
  /** The default timestamp tolerance, either way: 300 seconds, as Stripe's libraries use. */
  public static final Duration DEFAULT_TOLERANCE = Duration.ofSeconds(300);
  /** The header the signatures come in. */
  public static final String SIGNATURE_HEADER = "Stripe-Signature";

  private final List<byte[]> secrets;
  private final Duration tolerance;

  private StripeSignatures(Builder b) {
    this.secrets = Signing.checkSecrets(b.secrets);
    this.tolerance = b.tolerance;
  }

  /** A builder with no secret and the default tolerance. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public VerifiedDelivery verify(WebhookRequest request, Instant now)
      throws WebhookRefusedException {
    String header = Signing.header(request, SIGNATURE_HEADER,
        WebhookRefusedException.Reason.MISSING_SIGNATURE);
    String timestamp = null;
    for (String item : header.split(",")) {
      String trimmed = item.trim();
      if (trimmed.startsWith("t=")) {
        if (timestamp != null) {
          throw Signing.malformed("the Stripe-Signature header holds more than one t=");
        }
        timestamp = trimmed.substring(2);
      }
    }
    if (timestamp == null) {
      throw new WebhookRefusedException(WebhookRefusedException.Reason.MISSING_TIMESTAMP,
          "the Stripe-Signature header holds no t= timestamp");
    }
    Instant signedAt = Signing.epochSeconds(timestamp, "the Stripe-Signature header's t=");
    List<byte[]> candidates = Signing.signatures(header, ",", "v1=",
        HmacSignatures.Encoding.HEX);
    if (candidates.isEmpty()) {
      throw Signing.malformed("the Stripe-Signature header holds no v1= signature in hex");
    }
    if (!Signing.anyMatches("HmacSHA256", secrets, candidates, (timestamp + ".").getBytes(UTF_8),
        request.body())) {
      throw Signing.badSignature(secrets.size());
    }
    Signing.checkWindow(signedAt, now, tolerance);
    String id = Signing.topLevelString(request.body(), "id");
    if (id == null || id.isBlank()) {
      throw new WebhookRefusedException(WebhookRefusedException.Reason.MISSING_ID,
          "the body is not a Stripe event: it has no top-level string \"id\"");
    }
    return new VerifiedDelivery(id, Signing.topLevelString(request.body(), "type"), signedAt);
  }

  /** Builds {@link StripeSignatures}. Not thread-safe. */
  public static final class Builder {
    private final List<byte[]> secrets = new ArrayList<>();
    private Duration tolerance = DEFAULT_TOLERANCE;

    private Builder() {}

    /**
     * Accepts signatures by the endpoint secret {@code secret} ({@code whsec_...}, as the
     * dashboard or the CLI shows it). Call once per secret while rolling it.
     *
     * @throws IllegalArgumentException if it is empty
     */
    public Builder secret(String secret) {
      secrets.add(Signing.utf8Secret(secret));
      return this;
    }

    /**
     * How far the signed timestamp may be from the receiver's clock, either way (default
     * {@link #DEFAULT_TOLERANCE}).
     *
     * @throws IllegalArgumentException if it is zero or negative
     */
    public Builder tolerance(Duration tolerance) {
      this.tolerance = Signing.checkTolerance(tolerance);
      return this;
    }

    /**
     * Builds the verifier.
     *
     * @throws IllegalStateException if no secret was given
     */
    public StripeSignatures build() {
      return new StripeSignatures(this);
    }
  }
}
