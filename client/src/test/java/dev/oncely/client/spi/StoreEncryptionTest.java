package dev.oncely.client.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreEncryptionException;
import java.security.SecureRandom;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class StoreEncryptionTest {
  private static SecretKey aes256() throws Exception {
    KeyGenerator generator = KeyGenerator.getInstance("AES");
    generator.init(256, new SecureRandom());
    return generator.generateKey();
  }

  @Test
  void a_secret_key_seals_records_that_only_the_same_key_opens() throws Exception {
    SecretKey key = aes256();
    IntentRecord record = IntentStoreContract.fullRecord("s", "op", "k-secret");
    byte[] sealed = new RecordCodec(StoreEncryption.aesGcm(key)).encode(record);

    assertThat(new RecordCodec(StoreEncryption.aesGcm(key)).decode(sealed, "test"))
        .isEqualTo(record);
    assertThat(new RecordCodec(StoreEncryption.aes256Gcm(key.getEncoded())).decode(sealed, "t"))
        .isEqualTo(record);
    assertThatThrownBy(() -> new RecordCodec(StoreEncryption.aesGcm(aes256())).decode(sealed, "t"))
        .isInstanceOf(StoreEncryptionException.class);
  }

  @Test
  void the_secret_key_is_used_as_given_not_copied() throws Exception {
    SecretKey key = aes256();
    assertThat(StoreEncryption.aesGcm(key).secretKey()).isSameAs(key);
  }

  @Test
  void a_key_that_is_not_aes_256_is_refused() throws Exception {
    assertThatThrownBy(() -> StoreEncryption.aesGcm(new SecretKeySpec(new byte[16], "AES")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 16");
    assertThatThrownBy(() -> StoreEncryption.aesGcm(new SecretKeySpec(new byte[32], "HmacSHA256")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("HmacSHA256");
    assertThatThrownBy(() -> StoreEncryption.aesGcm(null))
        .isInstanceOf(NullPointerException.class);
  }
}
