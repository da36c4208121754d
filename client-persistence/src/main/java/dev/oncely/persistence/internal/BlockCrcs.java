package dev.oncely.persistence.internal;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.BitSet;
import java.util.zip.CRC32;

/**
 * The CRC32 of a whole MapDB copy, kept as the CRC32 of each {@value #BLOCK}-byte block and
 * combined on demand (zlib's {@code crc32_combine}), so a checkpoint recomputes only the blocks
 * MapDB wrote and the whole file's CRC32, exactly as the control file has always stored it, costs
 * a few operations per block instead of a read of the file. 4 bytes of memory per block (about
 * 0.006 % of the file). Not thread-safe: one checkpoint at a time.
 */
final class BlockCrcs {
  /** Bytes per block. */
  static final int BLOCK = 64 * 1024;
  private static final int POLY = 0xedb88320;
  /** Multiplies a CRC by x^(8 * BLOCK): appends a block's worth of zero bytes to it. */
  private static final int[] SHIFT_BLOCK = shiftOperator(BLOCK);

  private int[] crcs;
  private long length;

  private BlockCrcs(int[] crcs, long length) {
    this.crcs = crcs;
    this.length = length;
  }

  /** Reads the whole of {@code channel}'s file. */
  static BlockCrcs read(FileChannel channel) throws IOException {
    long length = channel.size();
    BlockCrcs sums = new BlockCrcs(new int[blocks(length)], length);
    ByteBuffer buffer = ByteBuffer.allocate(BLOCK);
    for (int block = 0; block < sums.crcs.length; block++) {
      sums.crcs[block] = sums.readBlock(channel, block, buffer);
    }
    return sums;
  }

  /** Writes these sums to {@code out}: the length, then each block's CRC32. */
  void writeTo(DataOutput out) throws IOException {
    out.writeLong(length);
    for (int crc : crcs) {
      out.writeInt(crc);
    }
  }

  /**
   * Reads sums {@link #writeTo} wrote.
   *
   * @throws IOException if {@code in} ends early or names an impossible length
   */
  static BlockCrcs readFrom(DataInput in) throws IOException {
    long length = in.readLong();
    if (length < 0 || (length + BLOCK - 1) / BLOCK > Integer.MAX_VALUE) {
      throw new IOException("block checksums of an impossible length " + length);
    }
    int[] crcs = new int[blocks(length)];
    for (int block = 0; block < crcs.length; block++) {
      crcs[block] = in.readInt();
    }
    return new BlockCrcs(crcs, length);
  }

  /** The file's length. */
  long length() {
    return length;
  }

  /** The CRC32 of the whole file. */
  int whole() {
    int crc = 0;
    for (int block = 0; block < crcs.length; block++) {
      long size = Math.min(BLOCK, length - (long) block * BLOCK);
      crc = (size == BLOCK ? times(SHIFT_BLOCK, crc) : shift(crc, size)) ^ crcs[block];
    }
    return crc;
  }

  /**
   * Re-reads, from {@code channel}'s file, the blocks holding a page of {@code pages} (pages of
   * {@code pageSize} bytes) and those the file's new length changed; every other block must be as
   * it was when these sums were last taken.
   */
  void update(FileChannel channel, BitSet pages, int pageSize) throws IOException {
    long newLength = channel.size();
    int newBlocks = blocks(newLength);
    BitSet stale = new BitSet(newBlocks);
    int pagesPerBlock = BLOCK / pageSize;
    for (int page = pages.nextSetBit(0); page >= 0; page = pages.nextSetBit(page + 1)) {
      stale.set(page / pagesPerBlock);
    }
    if (newLength != length) {
      int from = Math.max(0, Math.min(blocks(length), newBlocks) - 1);
      stale.set(from, Math.max(from + 1, newBlocks));
    }
    crcs = Arrays.copyOf(crcs, newBlocks);
    length = newLength;
    ByteBuffer buffer = ByteBuffer.allocate(BLOCK);
    for (int block = stale.nextSetBit(0); block >= 0 && block < newBlocks;
        block = stale.nextSetBit(block + 1)) {
      crcs[block] = readBlock(channel, block, buffer);
    }
  }

  private int readBlock(FileChannel channel, int block, ByteBuffer buffer) throws IOException {
    long position = (long) block * BLOCK;
    int size = (int) Math.min(BLOCK, length - position);
    ((Buffer) buffer).clear().limit(size);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        throw new IOException("unexpected end of file at " + (position + buffer.position()));
      }
    }
    CRC32 crc = new CRC32();
    crc.update(buffer.array(), 0, size);
    return (int) crc.getValue();
  }

  private static int blocks(long length) {
    return Math.toIntExact((length + BLOCK - 1) / BLOCK);
  }

  /** {@code crc} with {@code bytes} zero bytes appended (zlib's crc32_combine with crc2 = 0). */
  private static int shift(int crc, long bytes) {
    if (bytes <= 0) {
      return crc;
    }
    int[] odd = new int[32];
    int[] even = new int[32];
    odd[0] = POLY;
    int row = 1;
    for (int n = 1; n < 32; n++) {
      odd[n] = row;
      row <<= 1;
    }
    square(even, odd);
    square(odd, even);
    long remaining = bytes;
    do {
      square(even, odd);
      if ((remaining & 1) != 0) {
        crc = times(even, crc);
      }
      remaining >>= 1;
      if (remaining == 0) {
        break;
      }
      square(odd, even);
      if ((remaining & 1) != 0) {
        crc = times(odd, crc);
      }
      remaining >>= 1;
    } while (remaining != 0);
    return crc;
  }

  private static int[] shiftOperator(long bytes) {
    int[] operator = new int[32];
    for (int n = 0; n < 32; n++) {
      operator[n] = shift(1 << n, bytes);
    }
    return operator;
  }

  private static int times(int[] matrix, int vector) {
    int sum = 0;
    int i = 0;
    int v = vector;
    while (v != 0) {
      if ((v & 1) != 0) {
        sum ^= matrix[i];
      }
      v >>>= 1;
      i++;
    }
    return sum;
  }

  private static void square(int[] square, int[] matrix) {
    for (int n = 0; n < 32; n++) {
      square[n] = times(matrix, matrix[n]);
    }
  }
}
