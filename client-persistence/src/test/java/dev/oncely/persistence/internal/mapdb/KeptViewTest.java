package dev.oncely.persistence.internal.mapdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.persistence.crash.CrashWorkload;
import dev.oncely.persistence.internal.GroupCommitter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint keeps the working view mapped while the private pages it holds stay within their
 * bound, and maps the image afresh past it: a kept view reads byte for byte as the image the
 * checkpoint wrote, and every record reads back in the store and after a reopen.
 */
class KeptViewTest {
  private static final int RECORDS = 400;
  /** Pages written before a checkpoint: four times this may be held privately (32 pages). */
  private static final int DIRTY_LIMIT = 8;

  @TempDir Path dir;

  @Test
  void a_kept_view_reads_as_the_image_and_is_mapped_afresh_past_its_bound() throws Exception {
    Path store = dir.resolve("intents.db");
    Path image = MapDbCopies.imagePath(store);
    MapDbRecords records = new MapDbRecords(null);
    int comparedAfterCheckpoint = 0;
    // Nothing is handed to the applier, so MapDB is written only by the checkpoints (every few
    // commits, at the 16 KiB journal limit): after each commit the view holds exactly the image.
    try (MapDbCopies copies = MapDbCopies.open(store, FileIo.DEFAULT, 16 * 1024,
        new KeyCanary(null), Integer.MAX_VALUE, DIRTY_LIMIT)) {
      GroupCommitter<MapDbBatch> committer = new GroupCommitter<>("kept-view", copies, 64);
      long lastImageSequence = -1;
      for (int i = 0; i < RECORDS; i++) {
        MapDbRecords.Encoded created = records.encode(CrashWorkload.record(
            CrashWorkload.key(i), 0));
        committer.execute(b -> {
          records.create(b, created);
          return null;
        });
        long imageSequence = copies.readApplied(MapDbFile::sequence);
        if (imageSequence != lastImageSequence) {
          lastImageSequence = imageSequence;
          byte[] file = Files.readAllBytes(image);
          byte[] view = copies.readApplied(KeptViewTest::viewBytes);
          assertThat(view.length).as("the view's length is the image's").isEqualTo(file.length);
          assertThat(Arrays.equals(view, file)).as("the view after checkpoint of commit %d reads"
              + " as the image", imageSequence).isTrue();
          comparedAfterCheckpoint++;
        }
        for (int k = 0; k <= i; k += 37) {
          String key = CrashWorkload.key(k);
          IntentRecord found = copies.read(f -> records.get(f, CrashWorkload.id(key)));
          assertThat(found).as(key).isNotNull();
        }
      }
      assertThat(comparedAfterCheckpoint).as("checkpoints seen").isGreaterThan(20);
      assertThat(copies.viewsMappedAfresh()).as("views mapped afresh past the bound")
          .isPositive().isLessThan(comparedAfterCheckpoint - 1);
    }
    try (MapDbCopies copies = MapDbCopies.open(store, FileIo.DEFAULT, 16 * 1024,
        new KeyCanary(null))) {
      for (int i = 0; i < RECORDS; i++) {
        String key = CrashWorkload.key(i);
        IntentRecord r = copies.read(f -> records.get(f, CrashWorkload.id(key)));
        assertThat(r).as(key).isEqualTo(CrashWorkload.record(key, 0));
      }
    }
  }

  private static byte[] viewBytes(MapDbFile view) {
    byte[] all = new byte[Math.toIntExact(view.viewLength())];
    byte[] page = new byte[DirtyPages.PAGE];
    BlockCrcs.Pages pages = view.pages();
    for (int p = 0; (long) p * DirtyPages.PAGE < all.length; p++) {
      try {
        pages.read(p, page);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      System.arraycopy(page, 0, all, p * DirtyPages.PAGE,
          Math.min(DirtyPages.PAGE, all.length - p * DirtyPages.PAGE));
    }
    return all;
  }
}
