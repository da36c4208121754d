package dev.oncely.persistence.internal;

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

  /** Appends frames for commits 1..n with payload "commit-i" and returns the file's size. */
  private long write(int n) {
    try (Journal j = Journal.open(file(), FileIo.DEFAULT)) {
      j.replay(0, (s, p) -> { });
      for (int i = 1; i <= n; i++) {
        j.append(i, ("commit-" + i).getBytes(StandardCharsets.US_ASCII));
      }
      return j.size();
    }
  }

  private List<String> replay(long after) {
    List<String> seen = new ArrayList<>();
    try (Journal j = Journal.open(file(), FileIo.DEFAULT)) {
      j.replay(after, (s, p) -> seen.add(s + "=" + new String(p, StandardCharsets.US_ASCII)));
    }
    return seen;
  }

  @Test
  void replay_hands_over_the_frames_after_the_checkpoint_in_order() {
    write(4);
    assertThat(replay(0)).containsExactly("1=commit-1", "2=commit-2", "3=commit-3", "4=commit-4");
    assertThat(replay(2)).containsExactly("3=commit-3", "4=commit-4");
    assertThat(replay(4)).isEmpty();
  }

  @Test
  void a_torn_last_append_is_dropped_and_cut_off_every_earlier_frame_kept() throws Exception {
    long three = write(3);
    long four;
    try (Journal j = Journal.open(file(), FileIo.DEFAULT)) {
      j.replay(0, (s, p) -> { });
      j.append(4, "commit-4".getBytes(StandardCharsets.US_ASCII));
      four = j.size();
    }
    for (long keep : new long[] {three + 1, three + 10, three + Journal.HEADER_BYTES + 3,
        four - 1}) {
      Path copy = dir.resolve("copy-" + keep);
      Files.copy(file(), copy);
      try (RandomAccessFile f = new RandomAccessFile(copy.toFile(), "rw")) {
        f.setLength(keep);
      }
      List<String> seen = new ArrayList<>();
      try (Journal j = Journal.open(copy, FileIo.DEFAULT)) {
        j.replay(0, (s, p) -> seen.add(Long.toString(s)));
        assertThat(j.size()).as("cut back to the last complete frame").isEqualTo(three);
      }
      assertThat(seen).as("kept %d bytes", keep).containsExactly("1", "2", "3");
      assertThat(Files.size(copy)).isEqualTo(three);
    }
  }

  @Test
  void zeros_where_the_last_append_never_reached_the_disk_are_dropped() throws Exception {
    long three = write(3);
    try (RandomAccessFile f = new RandomAccessFile(file().toFile(), "rw")) {
      f.setLength(three + 700);
    }
    assertThat(replay(0)).containsExactly("1=commit-1", "2=commit-2", "3=commit-3");
    assertThat(Files.size(file())).isEqualTo(three);
  }

  @Test
  void a_complete_last_frame_failing_its_checksum_is_damage_not_a_tear() throws Exception {
    long size = write(3);
    try (RandomAccessFile f = new RandomAccessFile(file().toFile(), "rw")) {
      f.seek(size - 2);
      int b = f.read();
      f.seek(size - 2);
      f.write(b ^ 0x10);
    }
    assertThatThrownBy(() -> replay(0)).isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining(file().toString()).hasMessageContaining("commit 3");
    assertThat(Files.size(file())).as("nothing cut").isEqualTo(size);
  }

  @Test
  void a_damaged_frame_header_in_the_middle_is_damage() throws Exception {
    write(3);
    try (RandomAccessFile f = new RandomAccessFile(file().toFile(), "rw")) {
      f.seek(Journal.HEADER_BYTES + 8 + 5);
      f.write(0x7f);
    }
    assertThatThrownBy(() -> replay(0)).isInstanceOf(StoreCorruptedException.class);
  }

  @Test
  void a_gap_after_the_checkpoint_is_damage() {
    try (Journal j = Journal.open(file(), FileIo.DEFAULT)) {
      j.replay(0, (s, p) -> { });
      j.append(3, new byte[] {1});
      j.append(4, new byte[] {2});
    }
    assertThatThrownBy(() -> replay(0)).isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("missing");
    assertThat(replay(2)).hasSize(2);
  }
}
