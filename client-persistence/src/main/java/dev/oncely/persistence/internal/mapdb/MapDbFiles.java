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
 * Whole-file operations of the MapDB engine on its image: checksum ({@link BlockCrcs}), compare
 * with a control slot, force. Every write goes through the engine's {@link FileIo}; the checks
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
   * The block checksums of the first {@code state.length()} bytes of {@code file} when it has at
   * least that many and their CRC32 is the one {@code state} names, else null; reads only. Bytes
   * past the named length are no part of the image.
   */
  static BlockCrcs ifPrefixMatches(Path file, ControlFile.State state) {
    if (!Files.isRegularFile(file) || size(file) < state.length()) {
      return null;
    }
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      BlockCrcs sums = BlockCrcs.read(channel, state.length(), new BitSet(), null);
      return sums.whole() == state.crc() ? sums : null;
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
