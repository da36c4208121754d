package dev.oncely.persistence.internal.mapdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.persistence.crash.CrashWorkload;
import dev.oncely.persistence.internal.GroupCommitter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint also runs once MapDB has written the bound's worth of pages into the working view,
 * whatever the journal's size: the image changes while the journal is far below its limit, and
 * every record reads back after a reopen.
 */
class DirtyLimitTest {
  @TempDir Path dir;

  @Test
  void pages_written_past_the_bound_checkpoint_before_the_journal_limit() throws Exception {
    Path store = dir.resolve("intents.db");
    Path image = MapDbCopies.imagePath(store);
    MapDbRecords records = new MapDbRecords(null);
    byte[] before;
    try (MapDbCopies copies = MapDbCopies.open(store, FileIo.DEFAULT, 1L << 30,
        new KeyCanary(null), 1, 8)) {
      before = Files.readAllBytes(image);
      GroupCommitter<MapDbBatch> committer = new GroupCommitter<>("dirty-limit", copies, 64);
      for (int i = 0; i < 200; i++) {
        MapDbRecords.Encoded created = records.encode(CrashWorkload.record(
            CrashWorkload.key(i), 0));
        committer.execute(b -> {
          records.create(b, created);
          return null;
        });
      }
      assertThat(Files.readAllBytes(image))
          .as("a checkpoint wrote the image while open, the journal far below its 1 GiB limit")
          .isNotEqualTo(before);
    }
    try (MapDbCopies copies = MapDbCopies.open(store, FileIo.DEFAULT, 1L << 30,
        new KeyCanary(null))) {
      for (int i = 0; i < 200; i++) {
        String key = CrashWorkload.key(i);
        IntentRecord r = copies.read(f -> records.get(f, CrashWorkload.id(key)));
        assertThat(r).as(key).isNotNull();
      }
    }
  }
}
