package dev.oncely.persistence.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The fixed-length (32 bytes) index key of a business id within a scope and operation: SHA-256
 * over a domain tag and the length-prefixed parts, so it can never equal a
 * {@link RecordCodec#lookupKey record lookup key}. The business id itself stays in the record.
 */
public final class BusinessKey {
  private static final byte[] TAG = "oncely-business-id\0".getBytes(StandardCharsets.US_ASCII);

  private BusinessKey() {}

  /** Returns the key of {@code businessId} in {@code scope} and {@code operation}. */
  public static byte[] of(String scope, String operation, String businessId) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
    sha.update(TAG);
    for (String part : List.of(scope, operation, businessId)) {
      byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
      sha.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
      sha.update(bytes);
    }
    return sha.digest();
  }
}
