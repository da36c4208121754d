package dev.oncely.client.spi;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The encryption check every durable store runs at open, before it writes anything: a store keeps
 * whether it encrypts and one fixed record, the canary, written with its encryption setting when
 * the store is created. Opening compares the setting and decodes the canary, so a wrong key, a
 * missing key or a key on a plain store is refused at open even when the store holds no record
 * yet, and nothing is ever written under the wrong setting. Thread-safe.
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
  private final boolean encrypts;

  /** The canary of a store sealed with {@code encryption}, or plain when it is null. */
  public KeyCanary(@Nullable StoreEncryption encryption) {
    this.codec = new RecordCodec(encryption);
    this.encrypts = encryption != null;
  }

  /** Whether the store encrypts: the flag to store beside the canary. */
  public boolean encrypts() {
    return encrypts;
  }

  /** The canary's bytes, to be stored once when a store is created. */
  public byte[] bytes() {
    return codec.encode(CANARY);
  }

  /**
   * Checks a store's stored encryption flag against this setting.
   *
   * @param where names the store in messages
   * @throws StoreEncryptionException if the store encrypts and this setting does not, or the
   *     other way round
   */
  public void checkSetting(boolean storeEncrypts, String where) {
    if (storeEncrypts != encrypts) {
      throw new StoreEncryptionException(where + (storeEncrypts
          ? ": the store is encrypted; open it with the StoreEncryption it was created with"
          : ": the store was created without encryption; open it without StoreEncryption"), null);
    }
  }

  /**
   * Checks a stored canary against this store's encryption setting.
   *
   * @param where names the store in messages
   * @throws StoreEncryptionException if it was written with another key, or with or without one
   *     where this setting differs
   * @throws StoreCorruptedException if it is missing or damaged
   */
  public void check(byte @Nullable [] bytes, String where) {
    if (bytes == null) {
      throw new StoreCorruptedException(where + ": the encryption canary is missing");
    }
    IntentRecord stored = codec.decode(bytes, where + ": encryption canary");
    if (!stored.id().equals(CANARY.id())) {
      throw new StoreCorruptedException(where + ": the encryption canary holds another record");
    }
  }
}
