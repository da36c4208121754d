package dev.oncely.server.webhook;

import java.time.Instant;

/**
 * Verifies one delivery of a signature scheme and reads its message id. Implementations compare
 * signatures in constant time on their raw bytes, accept any of several secrets (rotation), and
 * check a signed timestamp in both directions. Thread-safe and immutable.
 */
public interface WebhookVerifier {
  /**
   * Verifies {@code request} at {@code now}.
   *
   * @return the delivery's id, type and signed time
   * @throws WebhookRefusedException if the delivery is not signed by one of the secrets, its
   *     timestamp is outside the tolerance, or it cannot be read; nothing may be stored
   */
  VerifiedDelivery verify(WebhookRequest request, Instant now) throws WebhookRefusedException;
}
