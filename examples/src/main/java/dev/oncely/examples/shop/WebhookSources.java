package dev.oncely.examples.shop;

import dev.oncely.server.webhook.GitHubSignatures;
import dev.oncely.server.webhook.StandardWebhooks;
import dev.oncely.server.webhook.StripeSignatures;
import dev.oncely.server.webhook.WebhookVerifier;
import java.util.List;
import java.util.Objects;

/**
 * The webhook senders the shop verifies. Each name is the path segment of its endpoint ({@code POST
 * /webhooks/<name>}) and the source its events are stored under in the inbox:
 *
 * <ul>
 *   <li>{@value #STANDARD}: Standard Webhooks v1 ({@code webhook-id}, {@code webhook-timestamp},
 *       {@code webhook-signature}; a {@code whsec_...} secret), the event id is {@code
 *       webhook-id};
 *   <li>{@value #STRIPE}: Stripe ({@code Stripe-Signature: t=..,v1=..}; the endpoint's {@code
 *       whsec_...} secret), the event id is the body's {@code id};
 *   <li>{@value #GITHUB}: GitHub ({@code X-Hub-Signature-256: sha256=..}; the webhook's secret
 *       token), the event id is {@code X-GitHub-Delivery}, the type {@code X-GitHub-Event}.
 * </ul>
 *
 * Stateless.
 */
public final class WebhookSources {
  /** Standard Webhooks v1. */
  public static final String STANDARD = "standard";
  /** Stripe. */
  public static final String STRIPE = "stripe";
  /** GitHub. */
  public static final String GITHUB = "github";
  /** Every name, in the order the usage text lists them. */
  public static final List<String> NAMES = List.of(STANDARD, STRIPE, GITHUB);

  private WebhookSources() {}

  /**
   * The verifier of source {@code name} accepting a signature by any of {@code secrets} (several
   * while a secret is rotated), with the scheme's default timestamp tolerance.
   *
   * @throws IllegalArgumentException if {@code name} is not one of {@link #NAMES}, or a secret is
   *     not in the form the scheme takes; the message never contains the secret
   */
  static WebhookVerifier verifier(String name, List<String> secrets) {
    Objects.requireNonNull(secrets, "secrets");
    if (secrets.isEmpty()) {
      throw new IllegalArgumentException("webhook source " + name + " needs a secret");
    }
    switch (Objects.requireNonNull(name, "name")) {
      case STANDARD -> {
        StandardWebhooks.Builder b = StandardWebhooks.builder();
        secrets.forEach(b::secret);
        return b.build();
      }
      case STRIPE -> {
        StripeSignatures.Builder b = StripeSignatures.builder();
        secrets.forEach(b::secret);
        return b.build();
      }
      case GITHUB -> {
        GitHubSignatures.Builder b = GitHubSignatures.builder();
        secrets.forEach(b::secret);
        return b.build();
      }
      default -> throw new IllegalArgumentException("a webhook source is one of "
          + String.join(", ", NAMES) + ", was '" + name + "'");
    }
  }
}
