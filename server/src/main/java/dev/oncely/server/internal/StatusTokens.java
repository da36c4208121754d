package dev.oncely.server.internal;

import dev.oncely.client.IntentId;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * One-way names derived from a receipt's identity: the token of its status URL, and the keys of
 * the outbound intents its handler sends. Both are SHA-256 of the identity under a domain of their
 * own, so neither reveals the key or the scope, and both are the same on every run and every
 * instance (a re-run after a crash reuses the provider key).
 */
public final class StatusTokens {
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  private StatusTokens() {}

  /** The status URL token of {@code id}: 128 bits, base64url. */
  public static String tokenOf(IntentId id) {
    return B64.encodeToString(Arrays.copyOf(digest("oncely-status", id, ""), 16));
  }

  /**
   * The key of the outbound intent {@code step} of the request or message {@code id}: 192 bits,
   * base64url.
   *
   * @throws IllegalArgumentException if {@code step} is blank
   */
  public static String outboundKey(IntentId id, String step) {
    java.util.Objects.requireNonNull(step, "step");
    if (step.isBlank()) {
      throw new IllegalArgumentException("step must not be blank");
    }
    return B64.encodeToString(Arrays.copyOf(digest("oncely-outbound", id, step), 24));
  }

  private static byte[] digest(String domain, IntentId id, String step) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String part : new String[] {domain, id.scope(), id.operation(), id.key(), step}) {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        sha.update((byte) (bytes.length >>> 24));
        sha.update((byte) (bytes.length >>> 16));
        sha.update((byte) (bytes.length >>> 8));
        sha.update((byte) bytes.length);
        sha.update(bytes);
      }
      return sha.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
