package dev.oncely.client;

import dev.oncely.client.internal.Digests;
import java.nio.charset.StandardCharsets;

/** Short labels for keys that are safe to log: the first 6 bytes of SHA-256, hex, prefixed "k#". */
final class KeyHashes {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private KeyHashes() {}

  static String shortHash(String key) {
    byte[] digest = Digests.sha256().digest(key.getBytes(StandardCharsets.UTF_8));
    char[] out = new char[14];
    out[0] = 'k';
    out[1] = '#';
    for (int i = 0; i < 6; i++) {
      out[2 + 2 * i] = HEX[(digest[i] >> 4) & 0xf];
      out[3 + 2 * i] = HEX[digest[i] & 0xf];
    }
    return new String(out);
  }
}
