package dev.oncely.persistence.internal.mapdb;

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
 * a few operations per block instead of a read of the file. A block is one of {@link DirtyPages}'
 * pages: in a large store MapDB's writes land on pages spread over the whole file, and a larger
 * block would make a checkpoint read back that many times the bytes it wrote. 4 bytes of memory
 * per block (0.1 % of the file). Not thread-safe: one checkpoint at a time.
 */
final class BlockCrcs {
  /** Bytes per block. */
  static final int BLOCK = DirtyPages.PAGE;
  /** Bytes read per system call when many consecutive blocks are read. */
  private static final int CHUNK = 1 << 20;
  private static final int POLY = 0xedb88320;
  /**
   * Multiplies a CRC by x^(8 * BLOCK), which appends a block's worth of zero bytes to it: the
   * operator's products with each byte value in each of the four byte positions, so that
   * combining a block costs four look-ups instead of a 32-step product.
   */
  private static final int[][] SHIFT_BLOCK = byteTables(shiftOperator(BLOCK));

  private int[] crcs;
  private long length;

  private BlockCrcs(int[] crcs, long length) {
    this.crcs = crcs;
    this.length = length;
  }

  /** Reads the bytes of a {@value #BLOCK}-byte page. */
  interface Pages {
    /** Fills {@code into} (a page's worth) with page {@code page}. */
    void read(int page, byte[] into) throws IOException;
  }

  /**
   * The sums of the first {@code length} bytes of {@code channel}'s file with the pages of
   * {@code replaced} read from {@code pages} instead; bytes past the file's end count as zeros.
   * Reads only.
   */
  static BlockCrcs read(FileChannel channel, long length, BitSet replaced, Pages pages)
      throws IOException {
    BlockCrcs sums = new BlockCrcs(new int[blocks(length)], length);
    sums.readBlocks(channel, 0, sums.crcs.length, ByteBuffer.allocate(CHUNK));
    sums.readPages(replaced, pages);
    return sums;
  }

  /**
   * Takes the sums of a file now {@code newLength} bytes long from {@code pages}: the blocks
   * holding a page of {@code written} and those the new length changed; every other block must
   * be as it was when these sums were last taken.
   */
  void update(long newLength, BitSet written, Pages pages) throws IOException {
    BitSet stale = (BitSet) written.clone();
    if (newLength != length) {
      int newBlocks = blocks(newLength);
      int from = Math.max(0, Math.min(blocks(length), newBlocks) - 1);
      stale.set(from, Math.max(from + 1, newBlocks));
    }
    crcs = Arrays.copyOf(crcs, blocks(newLength));
    length = newLength;
    readPages(stale, pages);
  }

  private void readPages(BitSet which, Pages pages) throws IOException {
    byte[] page = new byte[BLOCK];
    CRC32 crc = new CRC32();
    for (int block = which.nextSetBit(0); block >= 0 && block < crcs.length;
        block = which.nextSetBit(block + 1)) {
      pages.read(block, page);
      crc.reset();
      crc.update(page, 0, (int) Math.min(BLOCK, length - (long) block * BLOCK));
      crcs[block] = (int) crc.getValue();
    }
  }

  /** Reads the whole of {@code channel}'s file. */
  static BlockCrcs read(FileChannel channel) throws IOException {
    long length = channel.size();
    BlockCrcs sums = new BlockCrcs(new int[blocks(length)], length);
    sums.readBlocks(channel, 0, sums.crcs.length, ByteBuffer.allocate(CHUNK));
    return sums;
  }

  /** Writes these sums to {@code out}: the length, the block size, then each block's CRC32. */
  void writeTo(DataOutput out) throws IOException {
    out.writeLong(length);
    out.writeInt(BLOCK);
    for (int crc : crcs) {
      out.writeInt(crc);
    }
  }

  /**
   * Reads sums {@link #writeTo} wrote.
   *
   * @throws IOException if {@code in} ends early, names an impossible length, or was written
   *     with another block size (by another version of the library)
   */
  static BlockCrcs readFrom(DataInput in) throws IOException {
    long length = in.readLong();
    if (length < 0 || (length + BLOCK - 1) / BLOCK > Integer.MAX_VALUE) {
      throw new IOException("block checksums of an impossible length " + length);
    }
    int block = in.readInt();
    if (block != BLOCK) {
      throw new IOException("block checksums of " + block + "-byte blocks, not " + BLOCK);
    }
    int[] crcs = new int[blocks(length)];
    for (int i = 0; i < crcs.length; i++) {
      crcs[i] = in.readInt();
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
      crc = (size == BLOCK ? shiftBlock(crc) : shift(crc, size)) ^ crcs[block];
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
    ByteBuffer buffer = ByteBuffer.allocate(CHUNK);
    for (int from = stale.nextSetBit(0); from >= 0 && from < newBlocks;
        from = stale.nextSetBit(from)) {
      int to = Math.min(stale.nextClearBit(from), newBlocks);
      readBlocks(channel, from, to, buffer);
      from = to;
    }
  }

  /** Reads blocks {@code from} to {@code to} (exclusive), a buffer's worth per system call. */
  private void readBlocks(FileChannel channel, int from, int to, ByteBuffer buffer)
      throws IOException {
    CRC32 crc = new CRC32();
    int perRead = buffer.capacity() / BLOCK;
    for (int first = from; first < to; first += perRead) {
      int end = Math.min(to, first + perRead);
      long position = (long) first * BLOCK;
      int size = (int) (Math.min((long) end * BLOCK, length) - position);
      ((Buffer) buffer).clear().limit(size);
      while (buffer.hasRemaining()) {
        if (channel.read(buffer, position + buffer.position()) < 0) {
          // Past the file's end: zeros, as a file extended to the length would hold.
          Arrays.fill(buffer.array(), buffer.position(), size, (byte) 0);
          break;
        }
      }
      for (int block = first; block < end; block++) {
        int offset = (block - first) * BLOCK;
        crc.reset();
        crc.update(buffer.array(), offset, Math.min(BLOCK, size - offset));
        crcs[block] = (int) crc.getValue();
      }
    }
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

  private static int shiftBlock(int crc) {
    return SHIFT_BLOCK[0][crc & 0xff] ^ SHIFT_BLOCK[1][(crc >>> 8) & 0xff]
        ^ SHIFT_BLOCK[2][(crc >>> 16) & 0xff] ^ SHIFT_BLOCK[3][crc >>> 24];
  }

  private static int[][] byteTables(int[] operator) {
    int[][] tables = new int[4][256];
    for (int position = 0; position < 4; position++) {
      for (int value = 0; value < 256; value++) {
        tables[position][value] = times(operator, value << (8 * position));
      }
    }
    return tables;
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
