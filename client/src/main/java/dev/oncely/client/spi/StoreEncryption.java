package dev.oncely.client.spi;

import java.util.Arrays;
import java.util.Objects;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * Optional AES-256-GCM encryption of the sensitive part of every stored record: the idempotency
 * key, request headers, body bytes, fingerprint and last response. Scope, operation, state,
 * timestamps and URLs stay readable so the store can index them. Immutable.
 *
 * <p>The app owns the 32-byte key (from the Android Keystore, a KMS, a secrets file). Opening a
 * store with the wrong key, or without a key for an encrypted store, fails with
 * {@link StoreEncryptionException}; nothing is deleted.
 */
public final class StoreEncryption {
  /** AES-256 key length in bytes. */
  public static final int KEY_BYTES = 32;

  private final SecretKey key;

  private StoreEncryption(SecretKey key) {
    this.key = key;
  }

  /**
   * Returns AES-256-GCM encryption with a copy of {@code key}.
   *
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException if {@code key} is not {@value #KEY_BYTES} bytes long
   */
  public static StoreEncryption aes256Gcm(byte[] key) {
    Objects.requireNonNull(key, "key");
    if (key.length != KEY_BYTES) {
      throw new IllegalArgumentException(
          "an AES-256 key is " + KEY_BYTES + " bytes, was " + key.length);
    }
    byte[] copy = key.clone();
    try {
      return new StoreEncryption(new SecretKeySpec(copy, "AES"));
    } finally {
      Arrays.fill(copy, (byte) 0);
    }
  }

  /** The key, for the record codec. */
  public SecretKey secretKey() {
    return key;
  }

  @Override
  public String toString() {
    return "StoreEncryption{AES-256-GCM}";
  }
}
