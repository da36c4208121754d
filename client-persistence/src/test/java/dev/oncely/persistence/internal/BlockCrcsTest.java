package dev.oncely.persistence.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;
import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlockCrcsTest {
  @TempDir Path dir;

  private static int crcOf(Path file) throws Exception {
    CRC32 crc = new CRC32();
    crc.update(Files.readAllBytes(file));
    return (int) crc.getValue();
  }

  @Test
  void the_combined_block_crcs_are_the_whole_files_crc32_before_and_after_written_pages()
      throws Exception {
    Random random = new Random(29);
    for (long size : new long[] {0, 1, 4095, BlockCrcs.BLOCK, BlockCrcs.BLOCK + 7, 1 << 20,
        3 * BlockCrcs.BLOCK + 4096}) {
      Path file = dir.resolve("f" + size);
      byte[] bytes = new byte[(int) size];
      random.nextBytes(bytes);
      Files.write(file, bytes);
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ,
          StandardOpenOption.WRITE)) {
        BlockCrcs sums = BlockCrcs.read(channel);
        assertThat(sums.whole()).as("size %d", size).isEqualTo(crcOf(file));
        for (long newSize : new long[] {size, size + 5000, Math.max(0, size - 3000)}) {
          BitSet pages = new BitSet();
          for (int i = 0; i < 3 && newSize > 0; i++) {
            long at = (long) (random.nextDouble() * newSize);
            pages.set((int) (at / 4096));
            channel.write(ByteBuffer.wrap(new byte[] {(byte) random.nextInt()}), at);
          }
          if (newSize > channel.size()) {
            channel.write(ByteBuffer.wrap(new byte[] {0}), newSize - 1);
            pages.set((int) ((newSize - 1) / 4096));
          } else {
            channel.truncate(newSize);
          }
          sums.update(channel, pages, 4096);
          assertThat(sums.whole()).as("size %d -> %d", size, newSize).isEqualTo(crcOf(file));
          assertThat(sums.length()).isEqualTo(newSize);
        }
      }
    }
  }
}
