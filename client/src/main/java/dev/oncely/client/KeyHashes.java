package dev.oncely.client;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** Short labels for keys that are safe to log: the first 6 bytes of SHA-256, hex, prefixed "k#". */
final class KeyHashes {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private KeyHashes() {}

  static String shortHash(String key) {
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
    StringBuilder out = new StringBuilder("k#");
    for (int i = 0; i < 6; i++) {
      out.append(HEX[(digest[i] >> 4) & 0xf]).append(HEX[digest[i] & 0xf]);
    }
    return out.toString();
  }
}
