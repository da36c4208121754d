package dev.oncely.persistence.internal.mapdb;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a checkpoint's last step costs: dropping the working view and mapping the image privately
 * again, MapDB's reopen included, for an image of {@code -Doncely.measure.records} records of
 * 1.3 KB (default 100,000). Not a test (the name does not end in Test); run it by name:
 * {@code -Dtest=ViewReopenMeasurement}.
 */
class ViewReopenMeasurement {
  @TempDir Path dir;

  @Test
  void reopen_of_the_view() {
    int records = Integer.getInteger("oncely.measure.records", 100_000);
    Path image = dir.resolve("store.image");
    MapDbFile file = MapDbFile.create(image, 0, FileIo.DEFAULT);
    Random random = new Random(1);
    for (int i = 0; i < records; i++) {
      byte[] key = new byte[32];
      byte[] value = new byte[1300];
      random.nextBytes(key);
      random.nextBytes(value);
      file.put(MapDbFile.RECORDS, key, value);
    }
    file.close();
    MapDbFiles.force(FileIo.DEFAULT, image);
    long[] nanos = new long[20];
    for (int round = 0; round < nanos.length; round++) {
      long t0 = System.nanoTime();
      MapDbFile view = MapDbFile.openView(image, FileIo.DEFAULT);
      view.sequence();
      view.release();
      nanos[round] = System.nanoTime() - t0;
    }
    java.util.Arrays.sort(nanos);
    System.out.printf("MEASURE view reopen, %d records, image %d bytes: median %.2f ms,"
        + " max %.2f ms%n", records, MapDbFiles.size(image), nanos[nanos.length / 2] / 1e6,
        nanos[nanos.length - 1] / 1e6);
    if (!Files.exists(image)) {
      throw new AssertionError("image missing");
    }
  }
}
