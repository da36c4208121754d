package dev.oncely.examples.server;

import java.util.Locale;
import java.util.Objects;

/**
 * How a {@link ReferenceServer} spells its idempotency answers. Both dialects accept the key in
 * either form (quoted Structured Field string or plain token) and mark replays with
 * {@code Idempotent-Replayed: true}.
 */
public enum ServerDialect {
  /**
   * {@code draft-ietf-httpapi-idempotency-key-header}: {@code 409} while in progress, {@code 422}
   * for a key reused with another payload, errors as {@code application/problem+json}.
   */
  IETF,
  /**
   * Stripe: {@code 409} with {@code idempotency_key_in_use} while in progress, {@code 400} with
   * {@code {"error":{"type":"idempotency_error"}}} for a key reused with another payload.
   */
  STRIPE;

  /**
   * Parses {@code ietf} or {@code stripe}, ignoring case.
   *
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException naming the value if it is neither
   */
  public static ServerDialect parse(String name) {
    Objects.requireNonNull(name, "dialect");
    switch (name.trim().toLowerCase(Locale.ROOT)) {
      case "ietf":
        return IETF;
      case "stripe":
        return STRIPE;
      default:
        throw new IllegalArgumentException(
            "dialect must be ietf or stripe, was '" + name + "'");
    }
  }
}
