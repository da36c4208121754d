package dev.oncely.persistence.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The marker matches only the files exactly as recorded, and only while it is intact. */
class CleanCloseMarkerTest {
  private static final byte[] PAYLOAD = {1, 2, 3, 4, 5};

  @TempDir Path dir;
  Path marker;
  Path big;
  Path small;
  List<Path> files;

  @BeforeEach
  void record() throws Exception {
    marker = dir.resolve("store.clean");
    big = dir.resolve("store.a");
    small = dir.resolve("store.b");
    Files.write(big, new byte[512 * 1024]);
    Files.write(small, new byte[] {7, 7, 7});
    files = List.of(big, small);
    assertThat(CleanCloseMarker.record(marker, files, PAYLOAD)).isTrue();
  }

  @Test
  void the_files_as_recorded_give_back_the_payload() {
    assertThat(CleanCloseMarker.read(marker, files)).hasValueSatisfying(
        payload -> assertThat(payload).isEqualTo(PAYLOAD));
  }

  @Test
  void a_write_in_the_same_millisecond_past_the_head_does_not_match() throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
      f.seek(300 * 1024);
      f.write(1);
    }
    assertThat(CleanCloseMarker.read(marker, files)).isEmpty();
  }

  @Test
  void a_truncated_or_grown_file_does_not_match() throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(small.toFile(), "rw")) {
      f.setLength(2);
    }
    assertThat(CleanCloseMarker.read(marker, files)).isEmpty();
  }

  @Test
  void a_file_replaced_by_an_equal_one_with_the_same_times_does_not_match() throws Exception {
    Path twin = dir.resolve("twin");
    Files.copy(big, twin, StandardCopyOption.COPY_ATTRIBUTES);
    Files.move(twin, big, StandardCopyOption.REPLACE_EXISTING);
    assertThat(Files.getLastModifiedTime(big)).isEqualTo(Files.getLastModifiedTime(small));
    assertThat(CleanCloseMarker.read(marker, files)).isEmpty();
  }

  @Test
  void an_edited_a_missing_or_a_foreign_marker_does_not_match() throws Exception {
    byte[] stored = Files.readAllBytes(marker);
    stored[stored.length / 2] ^= 1;
    Files.write(marker, stored);
    assertThat(CleanCloseMarker.read(marker, files)).isEmpty();

    assertThat(CleanCloseMarker.record(marker, files, PAYLOAD)).isTrue();
    assertThat(CleanCloseMarker.read(marker, List.of(small, big))).as("other files").isEmpty();

    CleanCloseMarker.forget(marker);
    assertThat(marker).doesNotExist();
    assertThat(CleanCloseMarker.read(marker, files)).isEmpty();
  }

  @Test
  void a_missing_file_does_not_match() throws Exception {
    Files.delete(small);
    assertThat(CleanCloseMarker.read(marker, files)).isEmpty();
  }
}
