package dev.oncely.client;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** Short labels for keys that are safe to log: the first 6 bytes of SHA-256, hex, prefixed "k#". */
final class KeyHashes {
  private static final char[] HEX = "0123456789abcdef".toCharArray();
  private static final MessageDigest SHA256 = newSha256();

  private KeyHashes() {}

  static String shortHash(String key) {
    byte[] digest = sha256().digest(key.getBytes(StandardCharsets.UTF_8));
    char[] out = new char[14];
    out[0] = 'k';
    out[1] = '#';
    for (int i = 0; i < 6; i++) {
      out[2 + 2 * i] = HEX[(digest[i] >> 4) & 0xf];
      out[3 + 2 * i] = HEX[digest[i] & 0xf];
    }
    return new String(out);
  }

  /** A fresh SHA-256: a clone of one prototype, cheaper than a provider lookup per call. */
  private static MessageDigest sha256() {
    try {
      return (MessageDigest) SHA256.clone();
    } catch (CloneNotSupportedException e) {
      return newSha256();
    }
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
