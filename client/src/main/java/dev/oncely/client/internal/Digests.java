package dev.oncely.client.internal;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 for the client's own hashes (scopes, key labels); payloads are hashed by oncely-payload. */
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

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
