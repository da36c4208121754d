package dev.oncely.persistence.internal.mapdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The redo file counts only whole and for the image the control slot names, and writing it into
 * the image is idempotent: once, twice, or after a torn first attempt, the image ends the same.
 */
class RedoFileTest {
  private static final int PAGE = DirtyPages.PAGE;
  private static final long LENGTH = 16L * PAGE;

  @TempDir Path dir;

  @Test
  void a_redo_counts_only_whole_and_for_the_named_commit_and_length() throws Exception {
    Path redo = dir.resolve("store.redo");
    RedoFile.write(FileIo.DEFAULT, redo, 7, LENGTH, pages(1, 2, 9), RedoFileTest::page);
    RedoFile read = RedoFile.readIfFor(redo, 7, LENGTH);
    assertThat(read).isNotNull();
    assertThat(read.pages()).isEqualTo(pages(1, 2, 9));
    byte[] bytes = new byte[PAGE];
    try (RedoFile.Reader reader = read.reader()) {
      reader.read(9, bytes);
    }
    assertThat(bytes).isEqualTo(page(9));

    assertThat(RedoFile.readIfFor(redo, 6, LENGTH)).as("another commit's").isNull();
    assertThat(RedoFile.readIfFor(redo, 7, LENGTH + PAGE)).as("another length's").isNull();
    byte[] whole = Files.readAllBytes(redo);
    Files.write(redo, Arrays.copyOf(whole, whole.length - 100));
    assertThat(RedoFile.readIfFor(redo, 7, LENGTH)).as("cut").isNull();
    Files.write(redo, whole);
    try (RandomAccessFile f = new RandomAccessFile(redo.toFile(), "rw")) {
      f.seek(whole.length / 2);
      f.write(whole[whole.length / 2] ^ 0x10);
    }
    assertThat(RedoFile.readIfFor(redo, 7, LENGTH)).as("a flipped bit").isNull();
    Files.delete(redo);
    assertThat(RedoFile.readIfFor(redo, 7, LENGTH)).as("missing").isNull();
  }

  @Test
  void writing_the_redo_into_the_image_again_gives_the_same_image() throws Exception {
    Path image = dir.resolve("store.image");
    Files.write(image, new byte[(int) (8 * PAGE)]);
    BitSet pages = pages(0, 3, 12, 15);
    RedoFile.applyTo(FileIo.DEFAULT, image, LENGTH, pages, RedoFileTest::page);
    byte[] once = Files.readAllBytes(image);
    assertThat(once).hasSize((int) LENGTH);
    assertThat(Arrays.copyOfRange(once, 12 * PAGE, 13 * PAGE)).isEqualTo(page(12));

    // A torn first attempt: half of one page, and bytes past the length from a grown view.
    Files.write(image, new byte[(int) (20 * PAGE)]);
    try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "rw")) {
      f.seek(3L * PAGE);
      f.write(page(3), 0, PAGE / 2);
    }
    RedoFile.applyTo(FileIo.DEFAULT, image, LENGTH, pages, RedoFileTest::page);
    RedoFile.applyTo(FileIo.DEFAULT, image, LENGTH, pages, RedoFileTest::page);
    assertThat(Files.readAllBytes(image)).isEqualTo(once);
  }

  private static BitSet pages(int... indexes) {
    BitSet set = new BitSet();
    for (int i : indexes) {
      set.set(i);
    }
    return set;
  }

  private static byte[] page(int index) {
    byte[] bytes = new byte[PAGE];
    Arrays.fill(bytes, (byte) (index * 7 + 1));
    bytes[0] = (byte) index;
    return bytes;
  }

  private static void page(int index, byte[] into) {
    System.arraycopy(page(index), 0, into, 0, PAGE);
  }
}
