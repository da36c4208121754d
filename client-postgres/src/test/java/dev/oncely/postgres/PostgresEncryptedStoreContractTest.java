package dev.oncely.postgres;

import dev.oncely.client.spi.StoreEncryption;

/** The store contract with AES-GCM encrypted record bytes. */
class PostgresEncryptedStoreContractTest extends PostgresIntentStoreContractTest {
  @Override
  PostgresIntentStore.Builder builder() {
    return super.builder()
        .encryption(StoreEncryption.aes256Gcm(new byte[StoreEncryption.KEY_BYTES]));
  }
}
