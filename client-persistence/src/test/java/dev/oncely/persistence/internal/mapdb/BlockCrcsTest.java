package dev.oncely.persistence.internal.mapdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
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
        3 * BlockCrcs.BLOCK + 4096, 3L * (1 << 20) + 3 * 4096 + 7}) {
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
          if (newSize > 300 * 4096L) {
            for (int page = 250; page < 300; page++) {
              pages.set(page);
              channel.write(ByteBuffer.wrap(new byte[] {(byte) random.nextInt()}),
                  page * 4096L + random.nextInt(4096));
            }
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

  @Test
  void sums_written_with_another_block_size_are_refused_and_their_own_read_back() throws Exception {
    Path file = dir.resolve("f");
    byte[] bytes = new byte[5 * BlockCrcs.BLOCK + 11];
    new Random(7).nextBytes(bytes);
    Files.write(file, bytes);
    BlockCrcs sums;
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      sums = BlockCrcs.read(channel);
    }
    ByteArrayOutputStream written = new ByteArrayOutputStream();
    sums.writeTo(new DataOutputStream(written));
    BlockCrcs back = BlockCrcs.readFrom(
        new DataInputStream(new ByteArrayInputStream(written.toByteArray())));
    assertThat(back.whole()).isEqualTo(crcOf(file));
    assertThat(back.length()).isEqualTo(bytes.length);

    ByteArrayOutputStream older = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(older);
    out.writeLong(bytes.length);
    out.writeInt(64 * 1024);
    out.writeInt(crcOf(file));
    assertThatThrownBy(() -> BlockCrcs.readFrom(
        new DataInputStream(new ByteArrayInputStream(older.toByteArray()))))
        .isInstanceOf(IOException.class).hasMessageContaining("65536-byte blocks");
  }
}
