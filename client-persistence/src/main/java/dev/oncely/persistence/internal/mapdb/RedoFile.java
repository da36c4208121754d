package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.StoreException;
import java.io.IOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;
import java.util.zip.CRC32;

/**
 * The redo file of the MapDB engine ({@code <store>.redo}): the pages a checkpoint is about to
 * write into the image, written and forced first, so a crash or power cut in the middle of the
 * in-place write leaves them to write again. Applying it is idempotent: each page is written
 * whole at its own offset.
 *
 * <p>Layout, big-endian:
 * <pre>
 *   magic "ORDO" | version u32 (1) | commit sequence i64 | image length i64 | page count u32
 *   then per page: page index u32 | {@value DirtyPages#PAGE} bytes
 *   crc32 u32 over every byte before it
 * </pre>
 * A redo counts only when its sequence and image length are those the control slot naming it
 * holds and its CRC32 verifies; a stale or torn one is never applied.
 */
final class RedoFile {
  private static final int PAGE = DirtyPages.PAGE;
  private static final byte[] MAGIC = {'O', 'R', 'D', 'O'};
  private static final int VERSION = 1;
  private static final int HEADER = 28;
  private static final int ENTRY = 4 + PAGE;
  /** Entries per write. */
  private static final int BATCH = 64;

  private final Path path;
  private final long length;
  private final BitSet pages;
  /** The file offset of each page's bytes, by page index. */
  private final java.util.Map<Integer, Long> offsets;

  private RedoFile(Path path, long length, BitSet pages, java.util.Map<Integer, Long> offsets) {
    this.path = path;
    this.length = length;
    this.pages = pages;
    this.offsets = offsets;
  }

  /** The redo file of the store at {@code store}. */
  static Path pathOf(Path store) {
    return store.resolveSibling(store.getFileName() + ".redo");
  }

  /**
   * Writes the pages {@code written} names below {@code length}, read from {@code source}, as the
   * redo of the image of commit {@code sequence} and forces it.
   *
   * @throws StoreException if a write or the force fails
   */
  static void write(FileIo io, Path path, long sequence, long length, BitSet written,
      BlockCrcs.Pages source) {
    BitSet pages = below(written, length);
    CRC32 crc = new CRC32();
    try (FileChannel out = io.open(path)) {
      out.truncate(0);
      ByteBuffer header = ByteBuffer.allocate(HEADER).put(MAGIC).putInt(VERSION)
          .putLong(sequence).putLong(length).putInt(pages.cardinality());
      long position = put(out, header, 0, crc);
      ByteBuffer batch = ByteBuffer.allocate(BATCH * ENTRY);
      byte[] page = new byte[PAGE];
      for (int p = pages.nextSetBit(0); p >= 0; p = pages.nextSetBit(p + 1)) {
        source.read(p, page);
        batch.putInt(p).put(page);
        if (!batch.hasRemaining()) {
          position = put(out, batch, position, crc);
        }
      }
      position = put(out, batch, position, crc);
      put(out, ByteBuffer.allocate(4).putInt((int) crc.getValue()), position, null);
      out.force(true);
    } catch (IOException e) {
      throw new StoreException("cannot write " + path + ": " + e, e);
    }
  }

  /** Writes {@code buffer}'s bytes up to its position at {@code position}; clears it. */
  private static long put(FileChannel out, ByteBuffer buffer, long position, CRC32 crc)
      throws IOException {
    ((Buffer) buffer).flip();
    if (crc != null) {
      crc.update(buffer.array(), 0, buffer.limit());
    }
    long at = position;
    while (buffer.hasRemaining()) {
      at += out.write(buffer, at);
    }
    ((Buffer) buffer).clear();
    return at;
  }

  /**
   * The redo at {@code path} when it is whole (its CRC32 verifies) and written for the image of
   * commit {@code sequence}, {@code length} bytes long; else null. Reads only.
   *
   * @throws StoreException if the file exists but cannot be read
   */
  static RedoFile readIfFor(Path path, long sequence, long length) {
    if (!Files.isRegularFile(path)) {
      return null;
    }
    try (FileChannel in = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = in.size();
      if (size < HEADER + 4) {
        return null;
      }
      ByteBuffer header = readFully(in, 0, HEADER);
      for (byte m : MAGIC) {
        if (header.get() != m) {
          return null;
        }
      }
      if (header.getInt() != VERSION || header.getLong() != sequence
          || header.getLong() != length) {
        return null;
      }
      int count = header.getInt();
      if (count < 0 || size != HEADER + (long) count * ENTRY + 4) {
        return null;
      }
      CRC32 crc = new CRC32();
      crc.update(header.array(), 0, HEADER);
      BitSet pages = new BitSet();
      java.util.Map<Integer, Long> offsets = new java.util.HashMap<>();
      long position = HEADER;
      ByteBuffer batch = ByteBuffer.allocate(BATCH * ENTRY);
      int left = count;
      while (left > 0) {
        int n = Math.min(left, BATCH);
        ByteBuffer entries = readInto(in, batch, position, n * ENTRY);
        crc.update(entries.array(), 0, n * ENTRY);
        for (int i = 0; i < n; i++) {
          int page = entries.getInt(i * ENTRY);
          if (page < 0 || (long) page * PAGE >= length) {
            return null;
          }
          pages.set(page);
          offsets.put(page, position + (long) i * ENTRY + 4);
        }
        position += (long) n * ENTRY;
        left -= n;
      }
      if (readFully(in, position, 4).getInt() != (int) crc.getValue()) {
        return null;
      }
      return new RedoFile(path, length, pages, offsets);
    } catch (IOException e) {
      throw new StoreException("cannot read " + path + ": " + e, e);
    }
  }

  /** The image length the redo was written for. */
  long length() {
    return length;
  }

  /** The pages the redo holds. */
  BitSet pages() {
    return (BitSet) pages.clone();
  }

  /** Reads the redo's pages; the reader must be closed. */
  Reader reader() throws IOException {
    return new Reader(FileChannel.open(path, StandardOpenOption.READ));
  }

  /** Reads the redo's pages by index. */
  final class Reader implements BlockCrcs.Pages, AutoCloseable {
    private final FileChannel in;
    private final ByteBuffer buffer = ByteBuffer.allocate(PAGE);

    private Reader(FileChannel in) {
      this.in = in;
    }

    @Override
    public void read(int page, byte[] into) throws IOException {
      Long offset = offsets.get(page);
      if (offset == null) {
        throw new IOException(path + " holds no page " + page);
      }
      readInto(in, buffer, offset, PAGE).get(into, 0, PAGE);
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  /**
   * Writes the pages {@code pages} names, read from {@code source}, into {@code image} in place,
   * gives it {@code length} bytes and forces it. Passes
   * {@link CommitCrashPoints.Checkpoint#WRITING_IN_PLACE} half-way.
   *
   * @throws StoreException if a write or the force fails
   */
  static void applyTo(FileIo io, Path image, long length, BitSet pages, BlockCrcs.Pages source) {
    BitSet inside = below(pages, length);
    try (FileChannel out = io.open(image)) {
      if (out.size() > length) {
        out.truncate(length);
      }
      int half = inside.cardinality() / 2;
      int done = 0;
      boolean passed = false;
      byte[] page = new byte[PAGE];
      for (int p = inside.nextSetBit(0); p >= 0; p = inside.nextSetBit(p + 1)) {
        if (!passed && done >= half) {
          CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.WRITING_IN_PLACE);
          passed = true;
        }
        source.read(p, page);
        long at = (long) p * PAGE;
        ByteBuffer bytes = ByteBuffer.wrap(page, 0, (int) Math.min(PAGE, length - at));
        while (bytes.hasRemaining()) {
          out.write(bytes, at + bytes.position());
        }
        done++;
      }
      if (!passed) {
        CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.WRITING_IN_PLACE);
      }
      if (out.size() < length) {
        out.write(ByteBuffer.allocate(1), length - 1);
      }
      out.force(true);
    } catch (IOException e) {
      throw new StoreException("cannot write " + image + " in place: " + e, e);
    }
  }

  private static BitSet below(BitSet pages, long length) {
    BitSet inside = (BitSet) pages.clone();
    int end = Math.toIntExact((length + PAGE - 1) / PAGE);
    inside.clear(end, Math.max(end, inside.length()));
    return inside;
  }

  private static ByteBuffer readFully(FileChannel in, long position, int length)
      throws IOException {
    return readInto(in, ByteBuffer.allocate(length), position, length);
  }

  private static ByteBuffer readInto(FileChannel in, ByteBuffer buffer, long position, int length)
      throws IOException {
    ((Buffer) buffer).clear().limit(length);
    while (buffer.hasRemaining()) {
      if (in.read(buffer, position + buffer.position()) < 0) {
        throw new IOException("unexpected end of file at " + (position + buffer.position()));
      }
    }
    return (ByteBuffer) ((Buffer) buffer).flip();
  }
}
