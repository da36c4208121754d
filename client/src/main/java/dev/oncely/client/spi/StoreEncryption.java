package dev.oncely.client.spi;

import dev.oncely.client.StoreEncryptionException;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * Optional AES-256-GCM encryption of the sensitive part of every stored record: the idempotency
 * key, request headers, body bytes, fingerprint and last response. Scope, operation, state,
 * timestamps and URLs stay readable so the store can index them. Immutable.
 *
 * <p>The app owns the key: 32 raw bytes ({@link #aes256Gcm(byte[])}, from a KMS or a secrets
 * file) or a {@link SecretKey} whose bytes may never leave its provider ({@link #aesGcm(SecretKey)},
 * an Android Keystore key, for example). Opening a store with the wrong key, or without a key for
 * an encrypted store, fails with {@link StoreEncryptionException}; nothing is deleted.
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

  /**
   * Returns AES-GCM encryption with {@code key}, used as given: its bytes are never read, so a
   * hardware-backed key (Android Keystore, {@code getEncoded()} null) works. The codec supplies a
   * fresh random 96-bit nonce per record, so an Android Keystore key must be generated with
   * {@code KeyGenParameterSpec.Builder.setRandomizedEncryptionRequired(false)}, block mode GCM and
   * no padding. When the key's bytes are readable they must be {@value #KEY_BYTES} long
   * (AES-256).
   *
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException if {@code key} is not an AES key, or its readable bytes are
   *     not {@value #KEY_BYTES} long
   */
  public static StoreEncryption aesGcm(SecretKey key) {
    Objects.requireNonNull(key, "key");
    if (!"AES".equalsIgnoreCase(key.getAlgorithm())) {
      throw new IllegalArgumentException("an AES key is needed, was " + key.getAlgorithm());
    }
    byte[] encoded = key.getEncoded();
    if (encoded != null) {
      int length = encoded.length;
      Arrays.fill(encoded, (byte) 0);
      if (length != KEY_BYTES) {
        throw new IllegalArgumentException(
            "an AES-256 key is " + KEY_BYTES + " bytes, was " + length);
      }
    }
    return new StoreEncryption(key);
  }

  /** The key, for the record codec. */
  public SecretKey secretKey() {
    return key;
  }

  @Override
  public String toString() {
    return "StoreEncryption{AES-GCM}";
  }
}
