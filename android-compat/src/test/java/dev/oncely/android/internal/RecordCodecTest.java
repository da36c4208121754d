package dev.oncely.android.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.IntentStoreContract;
import java.util.Arrays;
import org.junit.Test;

public class RecordCodecTest {
  private final IntentRecord full = IntentStoreContract.fullRecord("tenant", "op", "key");

  @Test
  public void every_field_survives_a_round_trip() {
    assertThat(RecordCodec.decode(RecordCodec.encode(full))).isEqualTo(full);
    IntentRecord minimal = IntentStoreContract.newRecord("tenant", "op", "key");
    assertThat(RecordCodec.decode(RecordCodec.encode(minimal))).isEqualTo(minimal);
  }

  @Test
  public void truncated_bytes_are_refused_at_every_length() {
    byte[] bytes = RecordCodec.encode(full);
    for (int length = 0; length < bytes.length; length++) {
      byte[] cut = Arrays.copyOf(bytes, length);
      assertThatThrownBy(() -> RecordCodec.decode(cut))
          .as("cut at %d of %d bytes", length, bytes.length)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  public void unknown_format_and_trailing_bytes_are_refused() {
    byte[] bytes = RecordCodec.encode(full);
    byte[] future = bytes.clone();
    future[0] = (byte) (RecordCodec.FORMAT + 1);
    assertThatThrownBy(() -> RecordCodec.decode(future))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("format " + (RecordCodec.FORMAT + 1));
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 3);
    assertThatThrownBy(() -> RecordCodec.decode(longer))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("3 bytes follow");
  }

  @Test
  public void checksum_changes_when_one_bit_flips() {
    byte[] bytes = RecordCodec.encode(full);
    long before = RecordCodec.checksum(bytes);
    bytes[bytes.length - 1] ^= 0x01;
    assertThat(RecordCodec.checksum(bytes)).isNotEqualTo(before);
  }
}
