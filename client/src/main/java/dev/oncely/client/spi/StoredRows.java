package dev.oncely.client.spi;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import java.util.Arrays;

/**
 * The read-side check every store runs on a stored record: the bytes found under a
 * {@link RecordCodec#lookupKey lookup key} must decode (checksum, version, key) to a record that
 * belongs under that key, so a value moved to another row, or a damaged index, is reported instead
 * of returned as another intent's. Rows are named by the first six bytes of their lookup key
 * ({@code row #0a1b2c3d4e5f}), never by the idempotency key. Thread-safe; every method is static.
 */
public final class StoredRows {
  private static final int NAMED_BYTES = 6;

  private StoredRows() {}

  /** The name of the row stored under {@code lookup} in messages. */
  public static String name(byte[] lookup) {
    StringBuilder hex = new StringBuilder("row #");
    for (int i = 0; i < Math.min(NAMED_BYTES, lookup.length); i++) {
      hex.append(Character.forDigit((lookup[i] >> 4) & 0xf, 16))
          .append(Character.forDigit(lookup[i] & 0xf, 16));
    }
    return hex.toString();
  }

  /**
   * Decodes {@code bytes}, found under {@code lookup} in {@code store}, and checks the record
   * belongs there.
   *
   * @throws StoreCorruptedException naming the store and row if the bytes are damaged or hold a
   *     record of another key
   * @throws dev.oncely.client.StoreEncryptionException if {@code codec} cannot open them
   */
  public static IntentRecord decode(RecordCodec codec, String store, byte[] lookup, byte[] bytes) {
    IntentRecord r = codec.decode(bytes, store + ": " + name(lookup));
    checkKey(store, lookup, RecordCodec.lookupKey(r.id()), r.id());
    return r;
  }

  /**
   * Checks that {@code held}, whose lookup key is {@code keyOfHeld}, was found under
   * {@code lookup}.
   *
   * @throws StoreCorruptedException naming the store and row if it belongs under another key
   */
  public static void checkKey(String store, byte[] lookup, byte[] keyOfHeld, IntentId held) {
    if (!Arrays.equals(keyOfHeld, lookup)) {
      throw new StoreCorruptedException(store + ": " + name(lookup) + " holds " + held
          + ", which belongs under another key");
    }
  }

  /**
   * Checks a store's revision column against the record it keeps beside it.
   *
   * @throws StoreCorruptedException naming the store and row if they differ
   */
  public static IntentRecord checkRevision(String store, byte[] lookup, long column,
      IntentRecord held) {
    if (held.revision() != column) {
      throw new StoreCorruptedException(store + ": " + name(lookup) + " has revision column "
          + column + " but holds revision " + held.revision());
    }
    return held;
  }
}
