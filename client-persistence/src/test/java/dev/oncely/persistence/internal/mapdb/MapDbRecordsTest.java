package dev.oncely.persistence.internal.mapdb;

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

  @Test
  void commits_wait_in_the_overlay_and_an_intent_finished_before_the_apply_reaches_mapdb_once() {
    try (MapDbFile file = MapDbFile.create(dir.resolve("copy"), 0, FileIo.DEFAULT)) {
      MapDbOverlay pending = new MapDbOverlay();
      IntentRecord finished = fullRecord("t", "op", "finished");
      IntentRecord open = fullRecord("t", "op", "open");
      MapDbBatch first = new MapDbBatch(file, pending);
      records.create(first, records.encode(finished));
      records.create(first, records.encode(open));
      first.publish();
      IntentRecord done = finished.successor().state(IntentState.COMPLETED).build();
      MapDbBatch second = new MapDbBatch(file, pending);
      assertThat(records.compareAndSet(second, finished, records.encode(done))).isTrue();
      second.publish();

      // Acknowledged commits: point reads see them at once, decoded; the file has none yet.
      assertThat(records.get(pending.over(file), done.id())).isSameAs(done);
      assertThat(records.get(pending.over(file), open.id())).isSameAs(open);
      assertThat(records.get(file, done.id())).isNull();
      // The finished intent's unfinished-index entry was added and removed: it is no change at all.
      assertThat(pending.range(MapDbFile.UNFINISHED, new byte[0], null)).hasSize(1);

      pending.applyTo(file);
      pending.clear();
      assertThat(pending.size()).isZero();
      assertThat(records.get(file, done.id())).isEqualTo(done);
      assertThat(records.listUnfinishedIds(file)).containsExactly(UnfinishedEntry.of(open));
      assertThat(file.all(MapDbFile.EXPIRY)).hasSize(1);
    }
  }

  @Test
  void a_removal_of_a_key_already_applied_is_applied_too() {
    try (MapDbFile file = MapDbFile.create(dir.resolve("copy"), 0, FileIo.DEFAULT)) {
      MapDbOverlay pending = new MapDbOverlay();
      IntentRecord r = fullRecord("t", "op", "k");
      MapDbBatch create = new MapDbBatch(file, pending);
      records.create(create, records.encode(r));
      create.publish();
      pending.applyTo(file);
      pending.clear();
      IntentRecord done = r.successor().state(IntentState.COMPLETED).build();
      MapDbBatch complete = new MapDbBatch(file, pending);
      assertThat(records.compareAndSet(complete, r, records.encode(done))).isTrue();
      complete.publish();

      assertThat(records.listUnfinishedIds(file)).containsExactly(UnfinishedEntry.of(r));
      pending.applyTo(file);
      pending.clear();
      assertThat(records.listUnfinishedIds(file)).isEmpty();
      assertThat(records.get(file, r.id())).isEqualTo(done);
    }
  }
}
