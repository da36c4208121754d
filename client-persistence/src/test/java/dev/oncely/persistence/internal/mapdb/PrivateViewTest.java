package dev.oncely.persistence.internal.mapdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mapdb.volume.ByteArrayVol;
import org.mapdb.volume.Volume;

/**
 * The working view of the image: MapDB's writes, growth included, stay in private memory and are
 * marked page by page; growth only extends the file with zeros past the image, and the image's
 * bytes change only when a checkpoint writes the marked pages.
 */
class PrivateViewTest {
  @TempDir Path dir;

  @Test
  void every_write_marks_the_pages_it_touches_once() {
    DirtyPages dirty = new DirtyPages();
    Volume volume = dirty.wrap(new ByteArrayVol());
    volume.ensureAvailable(16L * DirtyPages.PAGE);
    volume.putLong(0, 1);
    volume.putLong(8, 2);
    volume.putData(DirtyPages.PAGE - 4, new byte[8], 0, 8);
    assertThat(dirty.count()).isEqualTo(2);
    volume.putLong(16, 3);
    volume.putLong(5L * DirtyPages.PAGE, 4);
    assertThat(dirty.count()).isEqualTo(3);
    assertThat(dirty.marked().stream().toArray()).containsExactly(0, 1, 5);
  }

  @Test
  void what_mapdb_writes_into_the_view_never_reaches_the_file_and_growth_adds_only_zeros()
      throws Exception {
    Path image = dir.resolve("store.image");
    MapDbFile.create(image, 0, FileIo.DEFAULT).close();
    byte[] before = Files.readAllBytes(image);
    MapDbFile view = MapDbFile.openView(image, FileIo.DEFAULT);
    long mapped = view.viewLength();
    fill(view, 3000);
    assertThat(view.viewLength()).as("grown past the file's end").isGreaterThan(mapped);
    view.sequence(7);
    view.close();
    byte[] after = Files.readAllBytes(image);
    assertThat(after.length).as("extended to the grown view").isEqualTo(view.viewLength());
    assertThat(Arrays.copyOf(after, before.length)).as("the image's bytes as they were")
        .isEqualTo(before);
    assertThat(Arrays.copyOfRange(after, before.length, after.length))
        .as("past the image: zeros only").containsOnly((byte) 0);
    assertThat(view.writtenPageCount()).isPositive();
    byte[] page = new byte[DirtyPages.PAGE];
    int last = view.writtenPages().length() - 1;
    view.pages().read(last, page);
    assertThat(page).as("a written page past the image's end reads back from the view")
        .isNotEqualTo(new byte[DirtyPages.PAGE]);
    view.release();
  }

  private static void fill(MapDbFile file, int n) {
    Random random = new Random(29);
    for (int i = 0; i < n; i++) {
      byte[] key = new byte[32];
      byte[] value = new byte[1000];
      random.nextBytes(key);
      random.nextBytes(value);
      file.put(MapDbFile.RECORDS, key, value);
    }
  }
}
