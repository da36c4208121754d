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

/**
 * Whole-file operations of the MapDB engine on its copies: checksum ({@link BlockCrcs}), compare
 * with a control slot, copy in place (all of it, or the pages written), force. Every write goes through the engine's {@link FileIo}; the checks
 * read only. Failures are {@link StoreException}s naming the file.
 */
final class MapDbFiles {
  private static final int CHUNK = 1 << 20;

  private MapDbFiles() {}

  /** The block checksums of {@code path}, read in full. */
  static BlockCrcs checksum(FileIo io, Path path) {
    try (FileChannel channel = io.open(path)) {
      return BlockCrcs.read(channel);
    } catch (IOException e) {
      throw new StoreException("cannot read " + path + ": " + e, e);
    }
  }

  /**
   * The block checksums of {@code file} when it has exactly the length and CRC32 {@code state}
   * names, else null; reads only.
   */
  static BlockCrcs ifMatches(Path file, ControlFile.State state) {
    if (!Files.isRegularFile(file) || size(file) != state.length()) {
      return null;
    }
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      BlockCrcs sums = BlockCrcs.read(channel);
      return sums.length() == state.length() && sums.whole() == state.crc() ? sums : null;
    } catch (IOException e) {
      throw new StoreException("cannot read " + file + ": " + e, e);
    }
  }

  /** The length of {@code file}, or -1 when it is missing or unreadable. */
  static long size(Path file) {
    try {
      return Files.isRegularFile(file) ? Files.size(file) : -1;
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * Copies {@code from} over {@code to} in place (same file, so no rename needs to reach the disk
   * before the copy is forced at its own checkpoint). Not forced: {@code to} becomes the working
   * copy, which is distrusted after a crash anyway.
   */
  static void copy(FileIo io, Path from, Path to) {
    try (FileChannel in = io.open(from); FileChannel out = io.open(to)) {
      long size = in.size();
      long position = 0;
      ByteBuffer buffer = ByteBuffer.allocateDirect(CHUNK);
      while (position < size) {
        ((Buffer) buffer).clear();
        int n = in.read(buffer, position);
        if (n < 0) {
          break;
        }
        ((Buffer) buffer).flip();
        while (buffer.hasRemaining()) {
          out.write(buffer, position + buffer.position());
        }
        position += n;
        if (position >= size / 2 && position - n < size / 2) {
          CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.COPYING);
        }
      }
      out.truncate(size);
    } catch (IOException e) {
      throw new StoreException("cannot copy " + from + " to " + to + ": " + e, e);
    }
  }

  /**
   * Copies the {@code pageSize}-byte pages {@code pages} names from {@code from} to {@code to}
   * (runs of adjacent pages at once), then gives {@code to} the length of {@code from}. Not
   * forced, like {@link #copy}. Passes the crash point {@link CommitCrashPoints.Checkpoint#COPYING}
   * half-way, where a kill test may halt.
   */
  static void copyPages(FileIo io, Path from, Path to, BitSet pages, int pageSize) {
    try (FileChannel in = io.open(from); FileChannel out = io.open(to)) {
      long size = in.size();
      int half = pages.cardinality() / 2;
      int copied = 0;
      boolean pointPassed = false;
      ByteBuffer buffer = ByteBuffer.allocateDirect(CHUNK);
      for (int page = pages.nextSetBit(0); page >= 0; page = pages.nextSetBit(page)) {
        if (!pointPassed && copied >= half) {
          CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.COPYING);
          pointPassed = true;
        }
        int run = Math.min(pages.nextClearBit(page) - page, CHUNK / pageSize);
        long position = (long) page * pageSize;
        long length = Math.min((long) run * pageSize, size - position);
        if (length > 0) {
          ((Buffer) buffer).clear().limit((int) length);
          while (buffer.hasRemaining()) {
            if (in.read(buffer, position + buffer.position()) < 0) {
              break;
            }
          }
          ((Buffer) buffer).flip();
          while (buffer.hasRemaining()) {
            out.write(buffer, position + buffer.position());
          }
        }
        copied += run;
        page += run;
      }
      if (!pointPassed) {
        CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.COPYING);
      }
      if (out.size() > size) {
        out.truncate(size);
      } else if (out.size() < size) {
        out.write(ByteBuffer.allocate(1), size - 1);
      }
    } catch (IOException e) {
      throw new StoreException("cannot copy pages of " + from + " to " + to + ": " + e, e);
    }
  }

  /**
   * Whether {@code a} and {@code b} have the same length and the same bytes in the
   * {@code pageSize}-byte pages {@code pages} names; reads those pages only.
   */
  static boolean samePages(Path a, Path b, BitSet pages, int pageSize) {
    try (FileChannel left = FileChannel.open(a, StandardOpenOption.READ);
        FileChannel right = FileChannel.open(b, StandardOpenOption.READ)) {
      long size = left.size();
      if (right.size() != size) {
        return false;
      }
      ByteBuffer one = ByteBuffer.allocate(pageSize);
      ByteBuffer two = ByteBuffer.allocate(pageSize);
      for (int page = pages.nextSetBit(0); page >= 0 && (long) page * pageSize < size;
          page = pages.nextSetBit(page + 1)) {
        long position = (long) page * pageSize;
        int length = (int) Math.min(pageSize, size - position);
        if (!readFully(left, one, position, length).equals(readFully(right, two, position,
            length))) {
          return false;
        }
      }
      return true;
    } catch (IOException e) {
      throw new StoreException("cannot compare " + a + " with " + b + ": " + e, e);
    }
  }

  private static ByteBuffer readFully(FileChannel channel, ByteBuffer buffer, long position,
      int length) throws IOException {
    ((Buffer) buffer).clear().limit(length);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        throw new IOException("unexpected end of file at " + (position + buffer.position()));
      }
    }
    return (ByteBuffer) ((Buffer) buffer).flip();
  }

  /** Forces {@code file}'s data and metadata to stable storage. */
  static void force(FileIo io, Path file) {
    try (FileChannel channel = io.open(file)) {
      channel.force(true);
    } catch (IOException e) {
      throw new StoreException("cannot force " + file + ": " + e, e);
    }
  }

  /** Where a copy is rebuilt before it is renamed over {@code copy}. */
  static Path tempOf(Path copy) {
    return copy.resolveSibling(copy.getFileName() + ".tmp");
  }
}
