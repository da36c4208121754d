package dev.oncely.persistence.internal.mapdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mapdb.volume.ByteArrayVol;
import org.mapdb.volume.Volume;

class WriteBackTest {
  @TempDir Path dir;

  @Test
  void only_pages_written_for_the_first_time_count_towards_a_write_back() {
    DirtyPages dirty = new DirtyPages();
    Volume volume = dirty.wrap(new ByteArrayVol());
    volume.ensureAvailable(16L * DirtyPages.PAGE);
    volume.putLong(0, 1);
    volume.putLong(8, 2);
    volume.putData(DirtyPages.PAGE - 4, new byte[8], 0, 8);
    assertThat(dirty.newlyMarked()).isEqualTo(2);

    dirty.wroteBack();
    volume.putLong(16, 3);
    assertThat(dirty.newlyMarked()).as("page 0 was marked before the write-back").isZero();
    volume.putLong(5L * DirtyPages.PAGE, 4);
    assertThat(dirty.newlyMarked()).isEqualTo(1);
    assertThat(dirty.marked().cardinality()).as("a write-back forgets no mark").isEqualTo(3);
  }

  @Test
  void a_due_write_back_forces_every_write_so_far_and_one_not_due_forces_none() throws Exception {
    PowerCutFileIo forced = new PowerCutFileIo();
    MapDbFile due = MapDbFile.create(dir.resolve("due"), 0, forced);
    fill(due);
    due.writeBackEvery(1, forced);
    assertThat(forced.cut(PowerCutFileIo.Loss.ALL, new Random(1)))
        .as("unforced writes a power cut drops").isZero();

    PowerCutFileIo unforced = new PowerCutFileIo();
    MapDbFile notDue = MapDbFile.create(dir.resolve("not-due"), 0, unforced);
    fill(notDue);
    notDue.writeBackEvery(Integer.MAX_VALUE, unforced);
    assertThat(unforced.cut(PowerCutFileIo.Loss.ALL, new Random(1))).isPositive();
  }

  private static void fill(MapDbFile file) {
    Random random = new Random(29);
    for (int i = 0; i < 200; i++) {
      byte[] key = new byte[32];
      byte[] value = new byte[1000];
      random.nextBytes(key);
      random.nextBytes(value);
      file.put(MapDbFile.RECORDS, key, value);
    }
  }
}
