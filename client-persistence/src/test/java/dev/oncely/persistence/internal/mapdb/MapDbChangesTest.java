package dev.oncely.persistence.internal.mapdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MapDbChangesTest {
  private static final MapDbOverlay.Change PUT = new MapDbOverlay.Change(new byte[] {1}, null,
      false);

  @Test
  void keys_are_compared_by_content_and_a_replaced_key_counts_once() {
    MapDbChanges changes = new MapDbChanges();
    changes.put(MapDbFile.RECORDS, new byte[] {1, 2}, PUT);
    MapDbOverlay.Change removal = new MapDbOverlay.Change(null, null, false);
    changes.put(MapDbFile.RECORDS, new byte[] {1, 2}, removal);

    assertThat(changes.get(MapDbFile.RECORDS, new byte[] {1, 2})).isSameAs(removal);
    assertThat(changes.get(MapDbFile.BUSINESS, new byte[] {1, 2})).isNull();
    assertThat(changes.size()).isEqualTo(1);
    changes.remove(MapDbFile.RECORDS, new byte[] {1, 2});
    changes.remove(MapDbFile.RECORDS, new byte[] {1, 2});
    assertThat(changes.size()).isZero();
  }

  @Test
  void sorted_and_ranges_follow_mapdb_unsigned_byte_order() {
    MapDbChanges changes = new MapDbChanges();
    byte[][] keys = {{(byte) 0x80}, {0x7f}, {0x00, 0x01}, {0x00}, {(byte) 0xff, 0x00}};
    for (byte[] key : keys) {
      changes.put(MapDbFile.EXPIRY, key, PUT);
    }

    assertThat(keysOf(changes.sorted(MapDbFile.EXPIRY))).containsExactly(
        List.of(0x00), List.of(0x00, 0x01), List.of(0x7f), List.of(0x80), List.of(0xff, 0x00));
    assertThat(keysOf(changes.range(MapDbFile.EXPIRY, new byte[] {0x00, 0x01},
        new byte[] {(byte) 0x80}))).containsExactly(List.of(0x00, 0x01), List.of(0x7f));
    assertThat(keysOf(changes.range(MapDbFile.EXPIRY, new byte[] {0x7f}, null)))
        .containsExactly(List.of(0x7f), List.of(0x80), List.of(0xff, 0x00));
    assertThat(MapDbChanges.UNSIGNED.compare(new byte[] {(byte) 0x80}, new byte[] {0x7f}))
        .isPositive();
  }

  @Test
  void a_group_payload_lists_each_map_in_key_order() {
    MapDbChanges changes = new MapDbChanges();
    changes.put(MapDbFile.UNFINISHED, new byte[] {(byte) 0x90}, PUT);
    changes.put(MapDbFile.RECORDS, new byte[] {(byte) 0x90}, PUT);
    changes.put(MapDbFile.UNFINISHED, new byte[] {0x10}, PUT);

    byte[] payload = MapDbBatch.encode(changes);

    // count, then map u8 | key length u16 | key | value length i32 | value per change
    assertThat(payload[3]).isEqualTo((byte) 3);
    assertThat(new byte[] {payload[4], payload[7]})
        .containsExactly(MapDbFile.RECORDS, (byte) 0x90);
    assertThat(new byte[] {payload[13], payload[16]})
        .containsExactly(MapDbFile.UNFINISHED, (byte) 0x10);
    assertThat(new byte[] {payload[22], payload[25]})
        .containsExactly(MapDbFile.UNFINISHED, (byte) 0x90);
  }

  private static List<List<Integer>> keysOf(List<Map.Entry<byte[], MapDbOverlay.Change>> entries) {
    List<List<Integer>> out = new ArrayList<>();
    for (Map.Entry<byte[], MapDbOverlay.Change> e : entries) {
      List<Integer> key = new ArrayList<>();
      for (byte b : e.getKey()) {
        key.add(b & 0xff);
      }
      out.add(key);
    }
    return out;
  }
}
