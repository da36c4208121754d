package dev.oncely.client.internal;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 and hex for the client's own hashes (scopes, key labels, a finished request's digest);
 * payload fingerprints are computed by oncely-payload.
 */
public final class Digests {
  private static final MessageDigest SHA256 = newSha256();

  private Digests() {}

  /** A fresh SHA-256: a clone of one prototype, cheaper than a provider lookup per call. */
  public static MessageDigest sha256() {
    try {
      return (MessageDigest) SHA256.clone();
    } catch (CloneNotSupportedException e) {
      return newSha256();
    }
  }

  /** The lowercase hex form of {@code bytes}. */
  public static String hex(byte[] bytes) {
    char[] out = new char[bytes.length * 2];
    for (int i = 0; i < bytes.length; i++) {
      out[2 * i] = Character.forDigit((bytes[i] >> 4) & 0xf, 16);
      out[2 * i + 1] = Character.forDigit(bytes[i] & 0xf, 16);
    }
    return new String(out);
  }

  /**
   * The bytes of the lowercase hex string {@code hex}.
   *
   * @throws IllegalArgumentException if it is of odd length or holds another character
   */
  public static byte[] unhex(String hex) {
    if (hex.length() % 2 != 0) {
      throw new IllegalArgumentException("hex of odd length " + hex.length());
    }
    byte[] out = new byte[hex.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) (digit(hex.charAt(2 * i)) << 4 | digit(hex.charAt(2 * i + 1)));
    }
    return out;
  }

  private static int digit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    throw new IllegalArgumentException("not a lowercase hex digit: " + c);
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
