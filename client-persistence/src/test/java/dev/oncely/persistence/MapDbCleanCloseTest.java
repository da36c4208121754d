package dev.oncely.persistence;

import static dev.oncely.client.spi.IntentStoreContract.fullRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.persistence.internal.CleanCloseMarker;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MapDB open after a clean close does not read the image in full, and only for the very files that
 * close left: any write since, however soon, a copy taken while open, or a missing or edited
 * marker brings the full verification back. The checkpoint after such an open combines its CRC32
 * from the block checksums the marker kept, and a full verification then accepts it.
 */
class MapDbCleanCloseTest {
  @TempDir Path dir;
  Path store;
  Path marker;
  List<Path> files;
  List<IntentRecord> written = new ArrayList<>();

  @BeforeEach
  void writeAStore() {
    store = dir.resolve("intents.db");
    marker = dir.resolve("intents.db.clean");
    files = List.of(store, dir.resolve("intents.db.journal"), dir.resolve("intents.db.image"));
    try (MapDbIntentStore s = MapDbIntentStore.open(store,
        StoreOptions.builder().journalLimit(16 * 1024).build())) {
      for (int i = 0; i < 60; i++) {
        IntentRecord r = fullRecord("tenant", "pay", "key-" + i);
        s.create(r);
        if (i % 2 == 0) {
          IntentRecord done = r.successor().state(IntentState.COMPLETED).build();
          assertThat(s.compareAndSet(r, done)).isTrue();
          r = done;
        }
        written.add(r);
      }
    }
  }

  @Test
  void a_clean_close_leaves_a_marker_that_the_next_open_removes_before_writing()
      throws Exception {
    assertThat(marker).exists();
    assertThat(CleanCloseMarker.read(marker, files)).isPresent();
    try (MapDbIntentStore s = MapDbIntentStore.open(store)) {
      assertThat(marker).doesNotExist();
      assertEveryRecord(s);
    }
    assertThat(CleanCloseMarker.read(marker, files)).isPresent();
    try (MapDbIntentStore s = MapDbIntentStore.open(store)) {
      IntentRecord late = fullRecord("tenant", "pay", "late");
      s.create(late);
      written.add(late);
    }
    assertThat(CleanCloseMarker.read(marker, files)).as("recorded after a checkpoint too")
        .isPresent();
    CleanCloseMarker.forget(marker);
    try (MapDbIntentStore s = MapDbIntentStore.open(store)) {
      assertEveryRecord(s);
    }
  }

  /**
   * Proves the image is not read, not just found sound: damage past its first 64 KiB, which the
   * full verification refuses (the image fails its CRC32), is opened when the marker is made to
   * describe it again.
   */
  @Test
  void only_a_matching_marker_skips_reading_the_image() throws Exception {
    byte[] payload = CleanCloseMarker.read(marker, files).orElseThrow();
    overwriteNearTheEnd(dir.resolve("intents.db.image"));
    assertThat(CleanCloseMarker.read(marker, files)).isEmpty();
    Map<Path, byte[]> before = contents();
    assertThatThrownBy(() -> MapDbIntentStore.open(store))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("fails its checksum");
    assertThat(contents()).as("a refused open changes nothing, the marker included")
        .containsOnlyKeys(before.keySet())
        .allSatisfy((file, bytes) -> assertThat(bytes).isEqualTo(before.get(file)));

    assertThat(CleanCloseMarker.record(marker, files, payload)).isTrue();
    try (MapDbIntentStore s = MapDbIntentStore.open(store)) {
      assertEveryRecord(s);
    }
  }

  @Test
  void a_write_right_after_the_clean_close_is_seen_by_the_full_verification() throws Exception {
    overwriteNearTheEnd(dir.resolve("intents.db.image"));
    assertThat(CleanCloseMarker.read(marker, files)).isEmpty();
    assertThatThrownBy(() -> MapDbIntentStore.open(store))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("fails its checksum");
  }

  @Test
  void an_edited_marker_brings_the_full_verification_back() throws Exception {
    overwriteNearTheEnd(dir.resolve("intents.db.image"));
    byte[] payload = new byte[0];
    assertThat(CleanCloseMarker.record(marker, files, payload)).isTrue();
    try (RandomAccessFile f = new RandomAccessFile(marker.toFile(), "rw")) {
      f.seek(f.length() / 2);
      int b = f.read();
      f.seek(f.length() / 2);
      f.write(b ^ 1);
    }
    assertThatThrownBy(() -> MapDbIntentStore.open(store))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("fails its checksum");
  }

  @Test
  void a_store_copied_while_open_has_no_marker() throws Exception {
    Path image = dir.resolve("image");
    Files.createDirectories(image);
    try (MapDbIntentStore s = MapDbIntentStore.open(store)) {
      s.create(fullRecord("tenant", "pay", "late"));
      try (Stream<Path> all = Files.list(dir)) {
        for (Path f : all.filter(Files::isRegularFile).toList()) {
          Files.copy(f, image.resolve(f.getFileName()));
        }
      }
    }
    assertThat(image.resolve("intents.db.clean")).doesNotExist();
  }

  private void assertEveryRecord(MapDbIntentStore s) {
    for (IntentRecord r : written) {
      assertThat(s.get(r.id())).contains(r);
    }
    assertThat(s.listUnfinished()).containsExactlyInAnyOrderElementsOf(
        written.stream().filter(r -> !r.state().isTerminal()).toList());
  }

  /** 64 bytes of garbage 4 KiB before the end: past the head the marker checks. */
  private static void overwriteNearTheEnd(Path file) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      assertThat(f.length()).isGreaterThan(2 * 64 * 1024);
      f.seek(f.length() - 4096);
      byte[] garbage = new byte[64];
      for (int i = 0; i < garbage.length; i++) {
        garbage[i] = (byte) (0xa5 ^ i);
      }
      f.write(garbage);
    }
  }

  private Map<Path, byte[]> contents() throws Exception {
    Map<Path, byte[]> all = new HashMap<>();
    try (Stream<Path> list = Files.list(dir)) {
      for (Path f : list.filter(Files::isRegularFile).toList()) {
        all.put(f, Files.readAllBytes(f));
      }
    }
    return all;
  }
}
