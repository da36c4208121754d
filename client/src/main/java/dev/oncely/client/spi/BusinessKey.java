package dev.oncely.client.spi;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.jspecify.annotations.Nullable;

/**
 * The uniqueness rule of a business id: at most one record per scope, operation and business id.
 * Holds the fixed-length (32 bytes) index key a store keeps for it, SHA-256 over a domain tag and
 * the length-prefixed parts (so it never equals a {@link RecordCodec#lookupKey record lookup key},
 * and the business id itself stays in the record), and the check every store runs on what its
 * index found. Thread-safe; every method is static.
 */
public final class BusinessKey {
  private static final byte[] TAG = "oncely-business-id\0".getBytes(StandardCharsets.US_ASCII);

  private BusinessKey() {}

  /**
   * Returns the index key of {@code businessId} in {@code scope} and {@code operation}.
   *
   * @throws NullPointerException if an argument is null
   */
  public static byte[] of(String scope, String operation, String businessId) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
    sha.update(TAG);
    for (String part : new String[] {scope, operation, businessId}) {
      byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
      sha.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
      sha.update(bytes);
    }
    return sha.digest();
  }

  /** Returns the index key of {@code record}'s business id, or null when it has none. */
  public static byte @Nullable [] of(IntentRecord record) {
    String businessId = record.businessId();
    return businessId == null ? null
        : of(record.id().scope(), record.id().operation(), businessId);
  }

  /**
   * Returns {@code found}, the record a store's business-id index led to, after checking that it
   * carries that business id in that scope and operation: an index that points elsewhere would
   * hand one intent's outcome to another.
   *
   * @param store names the store in the message
   * @throws StoreCorruptedException naming the store and the record if it carries another one
   */
  public static IntentRecord checkFound(String store, IntentRecord found, String scope,
      String operation, String businessId) {
    if (!found.id().scope().equals(scope) || !found.id().operation().equals(operation)
        || !businessId.equals(found.businessId())) {
      throw new StoreCorruptedException(store + ": the business id index points at record "
          + found.id() + ", which carries another business id");
    }
    return found;
  }
}
