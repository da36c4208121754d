package dev.oncely.persistence.internal;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import java.io.IOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.logging.Logger;
import java.util.zip.CRC32;

/**
 * The MapDB engine's commit log: one frame per group commit, appended with one positional write
 * and made durable with one {@link FileChannel#force}. <b>The return of {@link #append} is the
 * commit point</b>: nobody is acknowledged before it.
 *
 * <p>Frame layout (big-endian):
 * <pre>
 *   magic "OMJ1" u32 | payload length u32 | commit sequence i64 | payload crc32 u32
 *   header crc32 u32 over the 20 bytes before it | payload
 * </pre>
 * Sequence numbers are consecutive. The file is emptied ({@link #reset}) after a checkpoint; a
 * crash between the checkpoint and the reset leaves frames the checkpoint already holds, which
 * {@link #replay} skips by their sequence number.
 *
 * <p><b>Torn tail.</b> A frame is acknowledged only after its force returned, so a frame that is
 * incomplete at the end of the file was never acknowledged and is dropped: the file ends inside
 * its header or payload, or its header is all zero bytes, or its payload fails the checksum while
 * holding an all-zero 512-byte block (blocks the disk allocated but never wrote). Anything else
 * that fails a checksum is damage, reported as {@link StoreCorruptedException}, never dropped:
 * a bit flip in the last frame must not silently lose an acknowledged write. Not thread-safe: the
 * committer thread appends, opening replays before it starts.
 */
public final class Journal implements AutoCloseable {
  /** Bytes before a frame's payload. */
  public static final int HEADER_BYTES = 24;

  private static final Logger LOG = Logger.getLogger(Journal.class.getName());
  private static final int MAGIC = 0x4f4d4a31;
  private static final int ZERO_BLOCK = 512;

  /** Receives each replayed frame's payload. */
  @FunctionalInterface
  public interface Frames {
    void frame(long sequence, byte[] payload);
  }

  private final Path path;
  private final FileChannel channel;
  private long end;

  private Journal(Path path, FileChannel channel, long end) {
    this.path = path;
    this.channel = channel;
    this.end = end;
  }

  /**
   * Opens (creating it owner-only when missing) the journal at {@code path}. Call {@link #replay}
   * before the first {@link #append}.
   *
   * @throws StoreException if it cannot be opened
   */
  public static Journal open(Path path, FileIo io) {
    try {
      FileChannel channel = io.open(path);
      return new Journal(path, channel, channel.size());
    } catch (IOException e) {
      throw new StoreException("cannot open the journal " + path + ": " + e, e);
    }
  }

  /** The journal's path. */
  public Path path() {
    return path;
  }

  /** Bytes in the journal: grows with every append, back to 0 at a reset. */
  public long size() {
    return end;
  }

  /**
   * Hands every frame with a sequence number above {@code after} to {@code frames}, in order, and
   * cuts a torn tail off (durably), so appends continue after the last complete frame.
   *
   * @return the sequence number of the last frame handed over, or {@code after} if none
   * @throws StoreCorruptedException if a frame is damaged, or the sequence numbers have a gap
   * @throws StoreException if the file cannot be read or cut
   */
  public long replay(long after, Frames frames) {
    try {
      long size = channel.size();
      long position = 0;
      long previous = -1;
      long last = after;
      while (position < size) {
        ByteBuffer header = read(position, (int) Math.min(HEADER_BYTES, size - position));
        if (header.capacity() < HEADER_BYTES) {
          cut(position, size);
          break;
        }
        if (allZero(header.array(), 0, HEADER_BYTES)) {
          if (!allZero(read(position, (int) (size - position)).array(), 0,
              (int) (size - position))) {
            throw damaged(position, "a zeroed frame header is followed by data");
          }
          cut(position, size);
          break;
        }
        byte[] h = header.array();
        if (header.getInt(0) != MAGIC || header.getInt(20) != crc(h, 0, 20)) {
          throw damaged(position, "a frame header fails its checksum");
        }
        int length = header.getInt(4);
        long sequence = header.getLong(8);
        if (length < 0 || position + HEADER_BYTES + length > size) {
          cut(position, size);
          break;
        }
        byte[] payload = read(position + HEADER_BYTES, length).array();
        if (header.getInt(16) != crc(payload, 0, length)) {
          if (position + HEADER_BYTES + length == size && hasZeroBlock(position + HEADER_BYTES,
              payload)) {
            cut(position, size);
            break;
          }
          throw damaged(position, "the frame of commit " + sequence + " fails its checksum");
        }
        if (previous >= 0 && sequence != previous + 1) {
          throw damaged(position, "commit " + sequence + " follows commit " + previous);
        }
        if (sequence > after) {
          if (sequence != last + 1) {
            throw damaged(position, "commit " + sequence + " follows the checkpoint of commit "
                + after + ": the commits between are missing");
          }
          frames.frame(sequence, payload);
          last = sequence;
        }
        previous = sequence;
        position += HEADER_BYTES + length;
      }
      return last;
    } catch (IOException e) {
      throw new StoreException("cannot read the journal " + path + ": " + e, e);
    }
  }

  /**
   * Appends the frame of commit {@code sequence} and forces it to stable storage: when this
   * returns, the commit survives a crash and a power cut.
   *
   * @throws StoreException if writing or forcing fails; the commit may then be durable or not, and
   *     the next append overwrites it
   */
  public void append(long sequence, byte[] payload) {
    ByteBuffer frame = ByteBuffer.allocate(HEADER_BYTES + payload.length);
    frame.putInt(MAGIC).putInt(payload.length).putLong(sequence)
        .putInt(crc(payload, 0, payload.length));
    frame.putInt(crc(frame.array(), 0, 20)).put(payload);
    ((Buffer) frame).flip();
    try {
      CommitCrashPoints.journalAppend(channel, end, frame);
      while (frame.hasRemaining()) {
        channel.write(frame, end + frame.position());
      }
      channel.force(false);
    } catch (IOException e) {
      throw new StoreException("cannot append to the journal " + path + ": " + e, e);
    }
    end += HEADER_BYTES + payload.length;
  }

  /**
   * Empties the journal durably (after a checkpoint holds every frame in it).
   *
   * @throws StoreException if it cannot be truncated
   */
  public void reset() {
    try {
      channel.truncate(0);
      channel.force(true);
      end = 0;
    } catch (IOException e) {
      throw new StoreException("cannot empty the journal " + path + ": " + e, e);
    }
  }

  /** Closes the descriptor. Idempotent. */
  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new StoreException("cannot close the journal " + path + ": " + e, e);
    }
  }

  private ByteBuffer read(long position, int length) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        throw new IOException("unexpected end of file at " + (position + buffer.position()));
      }
    }
    return buffer;
  }

  private void cut(long position, long size) throws IOException {
    channel.truncate(position);
    channel.force(true);
    end = position;
    if (position != size) {
      LOG.info(path + ": dropped a torn"
          + " tail of " + (size - position) + " bytes at " + position + " (an append that a crash"
          + " interrupted; it was never acknowledged)");
    }
  }

  /** Whether the payload, starting at file offset {@code offset}, holds an aligned zero block. */
  private static boolean hasZeroBlock(long offset, byte[] payload) {
    long first = (offset + ZERO_BLOCK - 1) / ZERO_BLOCK * ZERO_BLOCK;
    for (long block = first; block + ZERO_BLOCK <= offset + payload.length; block += ZERO_BLOCK) {
      if (allZero(payload, (int) (block - offset), ZERO_BLOCK)) {
        return true;
      }
    }
    return false;
  }

  private static boolean allZero(byte[] bytes, int from, int length) {
    for (int i = from; i < from + length; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static int crc(byte[] bytes, int from, int length) {
    CRC32 crc = new CRC32();
    crc.update(bytes, from, length);
    return (int) crc.getValue();
  }

  private StoreCorruptedException damaged(long position, String what) {
    return new StoreCorruptedException(path + ": " + what + " at byte " + position
        + " (not a torn append: the frame is complete, so it may have been acknowledged)");
  }
}
