package dev.oncely.persistence;

import dev.oncely.client.spi.StoreEncryption;

/** The store contract with AES-256-GCM sealing and a read cache in front of the SQLite file. */
class SqliteEncryptedCachedStoreContractTest extends SqliteIntentStoreContractTest {
  @Override
  StoreOptions options() {
    return StoreOptions.builder()
        .encryption(StoreEncryption.aes256Gcm(new byte[StoreEncryption.KEY_BYTES]))
        .cache(new LruRecordCache.Factory(), 100)
        .build();
  }
}
