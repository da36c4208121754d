package dev.oncely.persistence.internal;

import static dev.oncely.client.spi.IntentStoreContract.fullRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentState;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.StoreCorruptedException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Records and indexes on one real MapDB file, below the two-copy layout. */
class MapDbRecordsTest {
  @TempDir Path dir;

  private final MapDbRecords records = new MapDbRecords(new RecordCodec());

  @Test
  void list_unfinished_reads_only_the_unfinished_index_never_the_finished_records() {
    try (MapDbFile file = MapDbFile.create(dir.resolve("copy"), 0)) {
      IntentRecord open = fullRecord("t", "op", "open");
      IntentRecord done = fullRecord("t", "op", "done").toBuilder()
          .state(IntentState.COMPLETED).build();
      MapDbBatch batch = new MapDbBatch(file);
      records.create(batch, open);
      records.create(batch, done);
      file.commit();
      file.put(MapDbFile.RECORDS, RecordCodec.lookupKey(done.id()), new byte[] {1, 2, 3});
      file.commit();

      assertThat(records.listUnfinished(file)).containsExactly(open);
      assertThatThrownBy(() -> records.get(file, done.id()))
          .isInstanceOf(StoreCorruptedException.class);
    }
  }

  @Test
  void a_record_found_under_another_records_key_is_reported_not_returned() {
    try (MapDbFile file = MapDbFile.create(dir.resolve("copy"), 0)) {
      IntentRecord a = fullRecord("t", "op", "a");
      IntentRecord b = fullRecord("t", "op", "b");
      MapDbBatch batch = new MapDbBatch(file);
      records.create(batch, a);
      records.create(batch, b);
      file.commit();
      byte[] bBytes = file.get(MapDbFile.RECORDS, RecordCodec.lookupKey(b.id()));
      file.put(MapDbFile.RECORDS, RecordCodec.lookupKey(a.id()), bBytes);
      file.commit();

      assertThatThrownBy(() -> records.get(file, a.id()))
          .isInstanceOf(StoreCorruptedException.class)
          .hasMessageContaining("belongs under another key");
      assertThatThrownBy(() -> records.verify(file))
          .isInstanceOf(StoreCorruptedException.class);
    }
  }

  @Test
  void verify_finds_a_record_without_its_index_entry() {
    try (MapDbFile file = MapDbFile.create(dir.resolve("copy"), 0)) {
      IntentRecord r = fullRecord("t", "op", "k");
      MapDbBatch batch = new MapDbBatch(file);
      records.create(batch, r);
      file.commit();
      assertThat(records.verify(file)).isEqualTo(1);
      for (var e : file.all(MapDbFile.UNFINISHED)) {
        file.remove(MapDbFile.UNFINISHED, e.getKey());
      }
      file.commit();

      assertThatThrownBy(() -> records.verify(file))
          .isInstanceOf(StoreCorruptedException.class)
          .hasMessageContaining("no index entry");
    }
  }
}
