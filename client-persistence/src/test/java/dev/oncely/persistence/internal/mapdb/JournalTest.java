package dev.oncely.persistence.internal.mapdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.StoreCorruptedException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal's frames on a real file: what replay hands over, drops as torn, or refuses. */
class JournalTest {
  @TempDir Path dir;

  private Path file() {
    return dir.resolve("intents.db.journal");
  }

  /** Appends frames for commits 1..n with payload "commit-i"; returns the end of the frames. */
  private long write(int n) {
    try (Journal j = Journal.create(file(), FileIo.DEFAULT)) {
      for (int i = 1; i <= n; i++) {
        j.append(i, ("commit-" + i).getBytes(StandardCharsets.US_ASCII));
      }
      return Journal.HEADER_AREA + j.size();
    }
  }

  private List<String> replay(Path file, long after) {
    List<String> seen = new ArrayList<>();
    Journal.verify(file, after);
    try (Journal j = Journal.open(file, FileIo.DEFAULT)) {
      j.replay(after, (s, p) -> seen.add(s + "=" + new String(p, StandardCharsets.US_ASCII)));
    }
    return seen;
  }

  private List<String> replay(long after) {
    return replay(file(), after);
  }

  private static void zero(Path file, long from, long to) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(from);
      f.write(new byte[(int) (to - from)]);
    }
  }

  @Test
  void frames_of_any_size_one_after_the_other_replay_byte_for_byte() {
    List<byte[]> payloads = new ArrayList<>();
    for (int size : new int[] {40_000, 3, 3_000_000, 17, 70_000, 0, 5}) {
      byte[] p = new byte[size];
      for (int i = 0; i < size; i++) {
        p[i] = (byte) (i * 31 + size);
      }
      payloads.add(p);
    }
    try (Journal j = Journal.create(file(), FileIo.DEFAULT)) {
      for (int i = 0; i < payloads.size(); i++) {
        j.append(i + 1, payloads.get(i));
      }
    }
    List<byte[]> seen = new ArrayList<>();
    Journal.verify(file(), 0);
    try (Journal j = Journal.open(file(), FileIo.DEFAULT)) {
      assertThat(j.replay(0, (s, p) -> seen.add(p))).isEqualTo(payloads.size());
    }
    assertThat(seen).containsExactlyElementsOf(payloads);
  }

  @Test
  void replay_hands_over_the_frames_after_the_checkpoint_in_order() {
    write(4);
    assertThat(replay(0)).containsExactly("1=commit-1", "2=commit-2", "3=commit-3", "4=commit-4");
    assertThat(replay(2)).containsExactly("3=commit-3", "4=commit-4");
    assertThat(replay(4)).isEmpty();
  }

  @Test
  void the_file_grows_in_steps_and_keeps_its_allocated_length() throws Exception {
    write(3);
    assertThat(Files.size(file())).isEqualTo(Journal.GROWTH);
    try (Journal j = Journal.create(file(), FileIo.DEFAULT)) {
      for (int i = 1; i <= 3; i++) {
        j.append(i, new byte[Journal.GROWTH / 2]);
      }
    }
    assertThat(Files.size(file())).isEqualTo(2L * Journal.GROWTH);
    assertThat(replay(0)).hasSize(3);
  }

  @Test
  void a_torn_last_append_is_dropped_and_zeroed_every_earlier_frame_kept() throws Exception {
    long three = write(3);
    long four;
    try (Journal j = Journal.open(file(), FileIo.DEFAULT)) {
      j.replay(0, (s, p) -> { });
      j.append(4, "commit-4".getBytes(StandardCharsets.US_ASCII));
      four = Journal.HEADER_AREA + j.size();
    }
    for (long keep : new long[] {three + 1, three + 10, three + Journal.HEADER_BYTES + 3,
        four - 1}) {
      Path copy = dir.resolve("copy-" + keep);
      Files.copy(file(), copy);
      zero(copy, keep, four);
      List<String> seen = new ArrayList<>();
      Journal.verify(copy, 0);
      try (Journal j = Journal.open(copy, FileIo.DEFAULT)) {
        j.replay(0, (s, p) -> seen.add(Long.toString(s)));
        assertThat(Journal.HEADER_AREA + j.size()).as("back to the last complete frame")
            .isEqualTo(three);
        j.append(4, "again-4".getBytes(StandardCharsets.US_ASCII));
      }
      assertThat(seen).as("kept %d bytes", keep).containsExactly("1", "2", "3");
      assertThat(replay(copy, 0)).as("the tail was zeroed, so the new frame follows cleanly")
          .containsExactly("1=commit-1", "2=commit-2", "3=commit-3", "4=again-4");
    }
  }

  @Test
  void a_journal_cut_at_a_frame_boundary_is_damage_not_a_shorter_journal() throws Exception {
    long three = write(3);
    long two;
    try (Journal j = Journal.create(dir.resolve("two"), FileIo.DEFAULT)) {
      j.append(1, "commit-1".getBytes(StandardCharsets.US_ASCII));
      j.append(2, "commit-2".getBytes(StandardCharsets.US_ASCII));
      two = Journal.HEADER_AREA + j.size();
    }
    for (long keep : new long[] {two, three, Journal.HEADER_AREA, 0}) {
      Path copy = dir.resolve("cut-" + keep);
      Files.copy(file(), copy);
      try (RandomAccessFile f = new RandomAccessFile(copy.toFile(), "rw")) {
        f.setLength(keep);
      }
      byte[] before = Files.readAllBytes(copy);
      assertThatThrownBy(() -> Journal.verify(copy, 0)).as("cut at %d", keep)
          .isInstanceOf(StoreCorruptedException.class).hasMessageContaining(copy.toString());
      assertThat(Files.readAllBytes(copy)).isEqualTo(before);
    }
  }

  @Test
  void a_missing_journal_is_damage() {
    assertThatThrownBy(() -> Journal.verify(file(), 0))
        .isInstanceOf(StoreCorruptedException.class).hasMessageContaining("missing");
    assertThat(file()).doesNotExist();
  }

  @Test
  void a_complete_last_frame_failing_its_checksum_is_damage_not_a_tear() throws Exception {
    long end = write(3);
    try (RandomAccessFile f = new RandomAccessFile(file().toFile(), "rw")) {
      f.seek(end - 3);
      int b = f.read();
      f.seek(end - 3);
      f.write(b ^ 0x10);
    }
    byte[] before = Files.readAllBytes(file());
    assertThatThrownBy(() -> replay(0)).isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining(file().toString()).hasMessageContaining("commit 3");
    assertThat(Files.readAllBytes(file())).as("nothing cut").isEqualTo(before);
  }

  @Test
  void a_damaged_frame_header_in_the_middle_is_damage() throws Exception {
    write(3);
    try (RandomAccessFile f = new RandomAccessFile(file().toFile(), "rw")) {
      f.seek(Journal.HEADER_AREA + Journal.HEADER_BYTES + 9 + 5);
      f.write(0x7f);
    }
    assertThatThrownBy(() -> replay(0)).isInstanceOf(StoreCorruptedException.class);
  }

  @Test
  void damaged_header_slots_are_damage() throws Exception {
    write(3);
    zero(file(), 0, Journal.HEADER_AREA);
    assertThatThrownBy(() -> replay(0)).isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("header slot");
  }

  @Test
  void a_gap_after_the_checkpoint_is_damage() {
    try (Journal j = Journal.create(file(), FileIo.DEFAULT)) {
      j.append(3, new byte[] {1});
      j.append(4, new byte[] {2});
    }
    assertThatThrownBy(() -> replay(0)).isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("missing");
    assertThat(replay(2)).hasSize(2);
  }

  @Test
  void a_reset_leaves_the_bare_header_and_appends_start_again() {
    try (Journal j = Journal.create(file(), FileIo.DEFAULT)) {
      j.append(1, new byte[] {1});
      j.reset();
      j.append(2, new byte[] {2});
    }
    assertThat(replay(1)).containsExactly("2=\u0002");
  }
}
