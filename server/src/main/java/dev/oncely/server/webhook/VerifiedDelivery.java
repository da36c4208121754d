package dev.oncely.server.webhook;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a verified delivery says about itself: the sender's message id (the dedupe key: the same on
 * every redelivery of one event), its type when the scheme names one, and when it was signed when
 * the scheme signs a timestamp.
 *
 * @param messageId the event's id ({@code webhook-id}, a Stripe event's {@code id}, GitHub's
 *     {@code X-GitHub-Delivery})
 * @param type the event's type, or null
 * @param signedAt the signed timestamp, or null for a scheme without one
 */
public record VerifiedDelivery(String messageId, @Nullable String type,
    @Nullable Instant signedAt) {
  /** Checks the components. */
  public VerifiedDelivery {
    Objects.requireNonNull(messageId, "messageId");
    if (messageId.isBlank()) {
      throw new IllegalArgumentException("messageId must not be blank");
    }
  }
}
