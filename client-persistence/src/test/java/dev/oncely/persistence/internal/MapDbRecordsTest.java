package dev.oncely.persistence.internal;

import static dev.oncely.client.spi.IntentStoreContract.fullRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.UnfinishedEntry;
import dev.oncely.client.spi.RecordCodec;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Records and indexes on one real MapDB file, below the journal and the two copies. */
class MapDbRecordsTest {
  @TempDir Path dir;

  private final MapDbRecords records = new MapDbRecords(null);

  @Test
  void listing_unfinished_ids_reads_only_the_unfinished_index_never_a_record() {
    try (MapDbFile file = MapDbFile.create(dir.resolve("copy"), 0, FileIo.DEFAULT)) {
      IntentRecord open = fullRecord("t", "op", "open");
      IntentRecord done = fullRecord("t", "op", "done").toBuilder()
          .state(IntentState.COMPLETED).build();
      MapDbBatch batch = new MapDbBatch(file);
      records.create(batch, records.encode(open));
      records.create(batch, records.encode(done));
      batch.apply();
      file.put(MapDbFile.RECORDS, RecordCodec.lookupKey(open.id()), new byte[] {1, 2, 3});
      file.put(MapDbFile.RECORDS, RecordCodec.lookupKey(done.id()), new byte[] {1, 2, 3});

      assertThat(records.listUnfinishedIds(file)).containsExactly(UnfinishedEntry.of(open));
      assertThatThrownBy(() -> records.listUnfinished(file))
          .isInstanceOf(StoreCorruptedException.class);
      assertThatThrownBy(() -> records.get(file, done.id()))
          .isInstanceOf(StoreCorruptedException.class);
    }
  }

  @Test
  void a_record_found_under_another_records_key_is_reported_not_returned() {
    try (MapDbFile file = MapDbFile.create(dir.resolve("copy"), 0, FileIo.DEFAULT)) {
      IntentRecord a = fullRecord("t", "op", "a");
      IntentRecord b = fullRecord("t", "op", "b");
      MapDbBatch batch = new MapDbBatch(file);
      records.create(batch, records.encode(a));
      records.create(batch, records.encode(b));
      batch.apply();
      byte[] bBytes = file.get(MapDbFile.RECORDS, RecordCodec.lookupKey(b.id()));
      file.put(MapDbFile.RECORDS, RecordCodec.lookupKey(a.id()), bBytes);

      assertThatThrownBy(() -> records.get(file, a.id()))
          .isInstanceOf(StoreCorruptedException.class)
          .hasMessageContaining("belongs under another key");
      assertThatThrownBy(() -> records.listUnfinished(file))
          .isInstanceOf(StoreCorruptedException.class);
    }
  }

  @Test
  void an_unfinished_index_entry_under_another_records_key_is_reported() {
    try (MapDbFile file = MapDbFile.create(dir.resolve("copy"), 0, FileIo.DEFAULT)) {
      IntentRecord a = fullRecord("t", "op", "a");
      IntentRecord b = fullRecord("t", "op", "b");
      MapDbBatch batch = new MapDbBatch(file);
      records.create(batch, records.encode(a));
      records.create(batch, records.encode(b));
      batch.apply();
      byte[] first = null;
      byte[] secondValue = null;
      for (var e : file.all(MapDbFile.UNFINISHED)) {
        if (first == null) {
          first = e.getKey();
        } else {
          secondValue = e.getValue();
        }
      }
      file.put(MapDbFile.UNFINISHED, first, secondValue);

      assertThatThrownBy(() -> records.listUnfinishedIds(file))
          .isInstanceOf(StoreCorruptedException.class);
    }
  }

  @Test
  void a_batch_sees_its_own_writes_and_leaves_the_file_untouched_until_applied() {
    try (MapDbFile file = MapDbFile.create(dir.resolve("copy"), 0, FileIo.DEFAULT)) {
      IntentRecord r = fullRecord("t", "op", "k");
      MapDbBatch batch = new MapDbBatch(file);
      records.create(batch, records.encode(r));
      IntentRecord next = r.successor().state(IntentState.COMPLETED).build();
      assertThat(records.compareAndSet(batch, r, records.encode(next))).isTrue();

      assertThat(records.get(file, r.id())).isNull();
      assertThat(records.listUnfinishedIds(file)).isEmpty();
      batch.apply();
      assertThat(records.get(file, r.id())).isEqualTo(next);
      assertThat(records.listUnfinishedIds(file)).isEmpty();
    }
  }
}
