package dev.oncely.client.internal;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Random idempotency keys: 192 bits from {@link SecureRandom}, URL-safe base64 without padding.
 * Each thread has its own generator: the JDK's default {@code NativePRNG} serializes every caller
 * on one global lock (a visible share of lock waiting at 64 callers, docs/benchmarks.md), while
 * a {@code DRBG} instance (NIST SP 800-90A, seeded by the system's entropy source) is independent. Where
 * DRBG does not exist (Android), each thread gets the platform's default generator.
 */
public final class Keys {
  private static final int RANDOM_BYTES = 24;
  // Not ThreadLocal.withInitial: Android API 24 lacks it.
  private static final ThreadLocal<SecureRandom> RANDOM = new ThreadLocal<>() {
    @Override
    protected SecureRandom initialValue() {
      return generator();
    }
  };
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

  private Keys() {}

  private static SecureRandom generator() {
    try {
      return SecureRandom.getInstance("DRBG");
    } catch (NoSuchAlgorithmException e) {
      return new SecureRandom();
    }
  }

  /** A fresh random key (32 characters). */
  public static String random() {
    byte[] bytes = new byte[RANDOM_BYTES];
    RANDOM.get().nextBytes(bytes);
    return ENCODER.encodeToString(bytes);
  }
}
