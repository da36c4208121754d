package dev.oncely.server.webhook;

import java.time.Instant;

/**
 * GitHub's webhook signatures: header {@code X-Hub-Signature-256: sha256=<hex>}, the HMAC-SHA256
 * of the body keyed by the secret token's UTF-8 bytes. The message id is {@code
 * X-GitHub-Delivery} (the same on a redelivery), the type {@code X-GitHub-Event}. The legacy
 * SHA-1 header {@code X-Hub-Signature} is not accepted.
 *
 * <p>GitHub signs no timestamp, so there is no replay window to check: the protection against a
 * replayed delivery is the inbox's dedupe by delivery id, which holds while the inbox keeps the
 * id (its retention, {@link dev.oncely.server.inbox.Inbox#DEFAULT_RETENTION} by default). A
 * delivery replayed after that is stored and handled again; keep the retention longer than the
 * time a captured delivery is worth replaying, or make the handler re-read what the event names.
 *
 * <p>Several secrets may be accepted at once: change the secret in GitHub's settings while the
 * receiver accepts both, then drop the old one. Immutable and thread-safe.
 */
public final class GitHubSignatures implements WebhookVerifier {
  /** The header the signature comes in. */
  public static final String SIGNATURE_HEADER = "X-Hub-Signature-256";
  /** The header naming the delivery: the message id. */
  public static final String DELIVERY_HEADER = "X-GitHub-Delivery";
  /** The header naming the event: the message's type. */
  public static final String EVENT_HEADER = "X-GitHub-Event";

  private final HmacSignatures scheme;

  private GitHubSignatures(HmacSignatures scheme) {
    this.scheme = scheme;
  }

  /** A builder with no secret. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * {@inheritDoc}
   *
   * <p>The signed time of the delivery returned is null: GitHub signs none.
   */
  @Override
  public VerifiedDelivery verify(WebhookRequest request, Instant now)
      throws WebhookRefusedException {
    return scheme.verify(request, now);
  }

  /** Builds {@link GitHubSignatures}. Not thread-safe. */
  public static final class Builder {
    private final HmacSignatures.Builder scheme = HmacSignatures.builder()
        .signatureHeader(SIGNATURE_HEADER).prefix("sha256=")
        .encoding(HmacSignatures.Encoding.HEX).algorithm(HmacSignatures.Algorithm.HMAC_SHA256)
        .signedContent(HmacSignatures.SignedContent.BODY)
        .idHeader(DELIVERY_HEADER).typeHeader(EVENT_HEADER);

    private Builder() {}

    /**
     * Accepts signatures by the secret token {@code secret}, as typed in the webhook's settings.
     * Call once per secret while rotating.
     *
     * @throws IllegalArgumentException if it is empty
     */
    public Builder secret(String secret) {
      scheme.secret(secret);
      return this;
    }

    /**
     * Builds the verifier.
     *
     * @throws IllegalStateException if no secret was given
     */
    public GitHubSignatures build() {
      return new GitHubSignatures(scheme.build());
    }
  }
}
