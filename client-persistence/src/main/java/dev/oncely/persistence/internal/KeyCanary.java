package dev.oncely.persistence.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.StoreEncryption;
import java.time.Instant;

/**
 * A fixed record every durable store writes once, at creation, with the store's encryption
 * setting: opening decodes it before anything else, so a wrong key, a missing key or a key on a
 * plain store is refused at open even when the store holds no record yet, and nothing is ever
 * written under the wrong setting. Thread-safe.
 */
public final class KeyCanary {
  private static final IntentRecord CANARY = IntentRecord.builder()
      .id(IntentId.of("oncely", "canary", "canary"))
      .method("GET")
      .url("oncely:canary")
      .fingerprint("canary")
      .state(IntentState.COMPLETED)
      .createdAt(Instant.EPOCH)
      .updatedAt(Instant.EPOCH)
      .expiresAt(Instant.EPOCH)
      .build();

  private final RecordCodec codec;

  /** The canary of a store sealed with {@code encryption}, or plain when it is null. */
  public KeyCanary(StoreEncryption encryption) {
    this.codec = new RecordCodec(encryption);
  }

  /** The canary's bytes, to be stored once when a store is created. */
  public byte[] bytes() {
    return codec.encode(CANARY);
  }

  /**
   * Checks a stored canary against this store's encryption setting.
   *
   * @param where names the store in messages
   * @throws StoreEncryptionException if it was written with another key, or with or without one
   *     where this setting differs
   * @throws StoreCorruptedException if it is missing or damaged
   */
  public void check(byte[] bytes, String where) {
    if (bytes == null) {
      throw new StoreCorruptedException(where + ": the encryption canary is missing");
    }
    IntentRecord stored = codec.decode(bytes, where + ": encryption canary");
    if (!stored.id().equals(CANARY.id())) {
      throw new StoreCorruptedException(where + ": the encryption canary holds another record");
    }
  }
}
