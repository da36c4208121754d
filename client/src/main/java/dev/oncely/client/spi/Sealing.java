package dev.oncely.client.spi;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import org.jspecify.annotations.Nullable;

/**
 * The one AES-GCM sealing of everything a store keeps secret (a record's sealed part, the key in
 * an unfinished-index stub): {@code 12-byte random nonce | ciphertext | 128-bit tag}, with the
 * caller's associated data bound in, so a sealed part moved to another record, or read with another
 * key, is refused. A sealing without a key leaves bytes plain and refuses sealed ones. Thread-safe.
 */
public final class Sealing {
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;

  private final @Nullable StoreEncryption encryption;
  private final SecureRandom random = new SecureRandom();

  /** Seals with {@code encryption}; null keeps everything plain. */
  public Sealing(@Nullable StoreEncryption encryption) {
    this.encryption = encryption;
  }

  /** Whether this sealing has a key: {@link #seal} encrypts and plain parts are refused. */
  public boolean seals() {
    return encryption != null;
  }

  /**
   * Returns {@code plain} sealed with {@code aad} as associated data, or {@code plain} itself
   * when this sealing has no key.
   */
  public byte[] seal(byte[] plain, byte[] aad) {
    if (encryption == null) {
      return plain;
    }
    try {
      byte[] nonce = new byte[NONCE_BYTES];
      random.nextBytes(nonce);
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, encryption.secretKey(),
          new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(aad);
      byte[] sealed = cipher.doFinal(plain);
      return ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed).array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is required by every Java platform", e);
    }
  }

  /**
   * Opens bytes {@link #seal sealed} with {@code aad}.
   *
   * @param where names the store and entry in messages (never a key)
   * @param what names the sealed thing in messages ("record", "unfinished index value")
   * @throws StoreEncryptionException if this sealing has no key, or another key sealed them
   * @throws StoreCorruptedException if they are shorter than a nonce
   */
  public byte[] open(byte[] sealed, byte[] aad, String where, String what) {
    if (encryption == null) {
      throw new StoreEncryptionException(where + ": " + what + " is encrypted but the store was"
          + " opened without StoreEncryption", null);
    }
    if (sealed.length < NONCE_BYTES) {
      throw new StoreCorruptedException(where + ": the encrypted part of the " + what + " is "
          + sealed.length + " bytes, shorter than its nonce");
    }
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, encryption.secretKey(),
          new GCMParameterSpec(TAG_BITS, sealed, 0, NONCE_BYTES));
      cipher.updateAAD(aad);
      return cipher.doFinal(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES);
    } catch (AEADBadTagException e) {
      throw new StoreEncryptionException(where + ": " + what + " cannot be decrypted; the store"
          + " was written with another encryption key", e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is required by every Java platform", e);
    }
  }

  /**
   * Checks that a plain (unsealed) {@code what} may be read: only without a key, since an
   * encrypted store never holds plain entries.
   *
   * @throws StoreEncryptionException if this sealing has a key
   */
  public void checkPlain(String where, String what) {
    if (encryption != null) {
      throw new StoreEncryptionException(where + ": " + what + " is not encrypted but the store"
          + " was opened with StoreEncryption; an encrypted store never holds plain entries", null);
    }
  }
}
