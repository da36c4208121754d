package dev.oncely.client.internal;

import java.security.SecureRandom;
import java.util.Base64;

/** Random idempotency keys: 192 bits from {@link SecureRandom}, URL-safe base64 without padding. */
public final class Keys {
  private static final int RANDOM_BYTES = 24;
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

  private Keys() {}

  /** A fresh random key (32 characters). */
  public static String random() {
    byte[] bytes = new byte[RANDOM_BYTES];
    RANDOM.nextBytes(bytes);
    return ENCODER.encodeToString(bytes);
  }
}
