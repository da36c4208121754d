package dev.oncely.server.webhook;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The Standard Webhooks v1 scheme (also Svix's): headers {@code webhook-id}, {@code
 * webhook-timestamp} (seconds) and {@code webhook-signature} (space-separated {@code v1,<base64>}
 * signatures; other versions are ignored), HMAC-SHA256 over {@code id.timestamp.body} with the
 * secret's bytes (the base64 after {@code whsec_}). The message id is {@code webhook-id}; the type
 * is the body's top-level {@code type} when the body is a JSON object. Immutable.
 */
public final class StandardWebhooks implements WebhookVerifier {
  /** The default timestamp tolerance, either way: 5 minutes, as the specification suggests. */
  public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);
  private static final String PREFIX = "whsec_";

  private final List<byte[]> secrets;
  private final Duration tolerance;

  private StandardWebhooks(Builder b) {
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
    String id = request.header("webhook-id");
    String timestamp = request.header("webhook-timestamp");
    String signatures = request.header("webhook-signature");
    if (signatures == null) {
      throw new WebhookRefusedException(WebhookRefusedException.Reason.MISSING_SIGNATURE,
          "the webhook-signature header is missing");
    }
    if (id == null || id.isBlank()) {
      throw new WebhookRefusedException(WebhookRefusedException.Reason.MISSING_ID,
          "the webhook-id header is missing");
    }
    if (timestamp == null) {
      throw new WebhookRefusedException(WebhookRefusedException.Reason.MISSING_TIMESTAMP,
          "the webhook-timestamp header is missing");
    }
    Instant signedAt = Signing.epochSeconds(timestamp.trim(), "webhook-timestamp");
    List<byte[]> candidates = Signing.signatures(signatures, " ", "v1,",
        HmacSignatures.Encoding.BASE64);
    if (candidates.isEmpty()) {
      throw Signing.malformed("webhook-signature holds no v1 signature");
    }
    if (!Signing.anyMatches("HmacSHA256", secrets, candidates,
        (id + "." + timestamp.trim() + ".").getBytes(UTF_8), request.body())) {
      throw Signing.badSignature(secrets.size());
    }
    Signing.checkWindow(signedAt, now, tolerance);
    return new VerifiedDelivery(id, Signing.topLevelString(request.body(), "type"), signedAt);
  }

  /** Builds {@link StandardWebhooks}. Not thread-safe. */
  public static final class Builder {
    private final List<byte[]> secrets = new ArrayList<>();
    private Duration tolerance = DEFAULT_TOLERANCE;

    private Builder() {}

    /**
     * Accepts signatures by {@code secret}: {@code whsec_} and base64, as the sender shows it (or
     * the base64 alone). Call once per secret while rotating.
     *
     * @throws IllegalArgumentException if the secret is not base64 after the prefix, or empty
     */
    public Builder secret(String secret) {
      Objects.requireNonNull(secret, "secret");
      String encoded = secret.startsWith(PREFIX) ? secret.substring(PREFIX.length()) : secret;
      byte[] key = Signing.base64(encoded);
      if (key == null || key.length == 0) {
        throw new IllegalArgumentException("a Standard Webhooks secret is whsec_ and base64");
      }
      secrets.add(key);
      return this;
    }

    /** Accepts signatures by the raw key bytes {@code key}. */
    public Builder secret(byte[] key) {
      secrets.add(Objects.requireNonNull(key, "key").clone());
      return this;
    }

    /**
     * How far the signed timestamp may be from the receiver's clock, either way (default {@link
     * #DEFAULT_TOLERANCE}).
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
    public StandardWebhooks build() {
      return new StandardWebhooks(this);
    }
  }
}
