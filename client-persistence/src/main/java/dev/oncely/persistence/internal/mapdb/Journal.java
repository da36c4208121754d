package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import java.io.IOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.logging.Logger;
import java.util.zip.CRC32;

/**
 * The MapDB engine's commit log: one frame per group commit, appended with one positional write
 * and made durable with one {@link FileChannel#force}. <b>The return of {@link #append} is the
 * commit point</b>: nobody is acknowledged before it.
 *
 * <p>File layout (big-endian): a {@value #HEADER_AREA}-byte header area holding two slots (at 0
 * and 256, written in turn, the valid one with the higher counter wins), then frames, then zeros
 * up to the <em>allocated length</em>:
 * <pre>
 *   slot:  magic "OMJH" u32 | counter i64 | allocated length i64 | crc32 u32 over the 20 bytes
 *   frame: magic "OMJ1" u32 | payload length u32 | commit sequence i64 | payload crc32 u32
 *          header crc32 u32 over the 20 bytes before it | payload | end mark 'E' u8
 * </pre>
 * The end mark makes the last non-zero byte of the file the end of the last complete frame.
 * Sequence numbers are consecutive. The file is emptied ({@link #reset}) after a checkpoint; a
 * crash between the checkpoint and the reset leaves frames the checkpoint already holds, which
 * {@link #replay} skips by their sequence number.
 *
 * <p><b>Acknowledged length.</b> The file grows in {@value #GROWTH}-byte steps: the file is first
 * extended with written zeros and forced, and only then does a slot name the new allocated
 * length, so a slot never names more than the disk holds. Frames are only ever written below the
 * allocated length.
 * A file shorter than its slot's allocated length was cut after the fact, and a missing journal,
 * or one without a valid slot, lost its acknowledged frames: both are
 * {@link StoreCorruptedException}, never a silent loss of acknowledged commits.
 *
 * <p><b>Torn tail.</b> A frame is acknowledged only after its force returned, so a frame that is
 * incomplete where the written data ends (only zeros follow) was never acknowledged and is
 * dropped: the data ends inside its header or payload, or its header is all zero bytes, or its
 * payload fails the checksum while holding an all-zero 512-byte block (blocks the disk allocated
 * but never wrote). Anything else that fails a checksum is damage, reported as
 * {@link StoreCorruptedException}, never dropped: a bit flip in the last frame must not silently
 * lose an acknowledged write.
 *
 * <p>{@link #verify} reads only: opening a store checks the whole journal before it changes any
 * file. Not thread-safe: one group-commit leader at a time appends (a checkpoint resets it while
 * that leader waits), opening replays before the first commit.
 */
public final class Journal implements AutoCloseable {
  /** Bytes before a frame's payload. */
  public static final int HEADER_BYTES = 24;
  /** Bytes before the first frame: the two slots naming the allocated length. */
  public static final int HEADER_AREA = 512;
  /** The step the allocated length grows by. */
  static final int GROWTH = 1 << 20;

  private static final Logger LOG = Logger.getLogger(Journal.class.getName());
  private static final int MAGIC = 0x4f4d4a31;
  private static final int SLOT_MAGIC = 0x4f4d4a48;
  private static final int SLOT_BYTES = 24;
  private static final int SLOT_DISTANCE = 256;
  private static final int ZERO_BLOCK = 512;
  private static final int ZERO_CHUNK = 64 * 1024;
  private static final byte END_MARK = 'E';
  private static final int FRAME_START = 16 * 1024;
  /** A frame buffer grown beyond this serves its append only and is not kept. */
  private static final int FRAME_KEPT = 1 << 20;

  /** A frame's payload, written straight into the frame (no array of it is made to be copied). */
  interface Payload {
    /** Its length in bytes. */
    int length();

    /** Puts exactly {@link #length} bytes into {@code out} from its position on. */
    void writeTo(ByteBuffer out);
  }

  /** Receives each replayed frame's payload. */
  @FunctionalInterface
  interface Frames {
    void frame(long sequence, byte[] payload);
  }

  /**
   * What {@link #verify} found: the frames to replay, where the complete frames end and where
   * written data ends (a torn tail lies between the two).
   *
   * @param last the sequence number of the last frame, or the checkpoint's if none follows it
   * @param frames the number of frames after the checkpoint
   * @param validEnd the offset after the last complete frame
   * @param dataEnd the offset after the last non-zero byte
   */
  record Scan(long last, int frames, long validEnd, long dataEnd) {}

  private final Path path;
  private final FileIo io;
  private FileChannel channel;
  private long end;
  private long allocated;
  private long slotWrites;
  /**
   * The frame of the last append, reused by the next one (appends run one at a time): a frame
   * per commit, and a payload array before it, were the commit's largest allocations.
   */
  private ByteBuffer frame;

  private Journal(Path path, FileIo io, FileChannel channel) {
    this.path = path;
    this.io = io;
    this.channel = channel;
  }

  /**
   * Creates an empty journal at {@code path} (owner-only), replacing what is there, durably.
   *
   * @throws StoreException if it cannot be written
   */
  public static Journal create(Path path, FileIo io) {
    Journal journal = open(path, io);
    try {
      journal.channel.truncate(0);
      journal.channel.write(ByteBuffer.allocate(1), HEADER_AREA - 1);
      journal.writeSlot(HEADER_AREA);
      journal.channel.force(true);
      journal.end = HEADER_AREA;
      return journal;
    } catch (IOException | RuntimeException e) {
      journal.closeQuietly(e);
      throw e instanceof StoreException s ? s
          : new StoreException("cannot create the journal " + path + ": " + e, e);
    }
  }

  /**
   * Opens the existing journal at {@code path} for {@link #replay} and appends; call
   * {@link #verify} first, which reads only.
   *
   * @throws StoreException if it cannot be opened
   */
  public static Journal open(Path path, FileIo io) {
    try {
      return new Journal(path, io, io.open(path));
    } catch (IOException e) {
      throw new StoreException("cannot open the journal " + path + ": " + e, e);
    }
  }

  /** The journal's path. */
  public Path path() {
    return path;
  }

  /** Bytes of frames in the journal: grows with every append, back to 0 at a reset. */
  public long size() {
    return Math.max(0, end - HEADER_AREA);
  }

  /**
   * Checks the journal at {@code path} without writing anything: a valid slot, a length not
   * below the allocated one, every frame after {@code after} complete, consecutive and intact up
   * to a torn tail.
   *
   * @throws StoreCorruptedException if the journal is missing, cut, damaged or has a gap
   * @throws StoreException if it cannot be read
   */
  static Scan verify(Path path, long after) {
    return verify(path, after, null);
  }

  /**
   * Like {@link #verify(Path, long)}, also handing each frame after {@code after} to
   * {@code frames} (to check its payload; it must not write).
   */
  static Scan verify(Path path, long after, Frames frames) {
    if (!Files.isRegularFile(path)) {
      throw new StoreCorruptedException(path + ": the journal is missing; the commits it"
          + " acknowledged after the checkpoint are lost");
    }
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      Journal reader = new Journal(path, null, channel);
      return reader.scan(after, frames);
    } catch (IOException e) {
      throw new StoreException("cannot read the journal " + path + ": " + e, e);
    }
  }

  /**
   * Hands every frame with a sequence number above {@code after} to {@code frames}, in order,
   * and zeros a torn tail (durably), so appends continue after the last complete frame.
   *
   * @return the sequence number of the last frame handed over, or {@code after} if none
   * @throws StoreCorruptedException if the journal is cut or a frame is damaged, or the sequence
   *     numbers have a gap
   * @throws StoreException if the file cannot be read or written
   */
  long replay(long after, Frames frames) {
    try {
      Scan scan = scan(after, frames);
      if (scan.dataEnd() > scan.validEnd()) {
        ByteBuffer zeros = ByteBuffer.allocate((int) (scan.dataEnd() - scan.validEnd()));
        while (zeros.hasRemaining()) {
          channel.write(zeros, scan.validEnd() + zeros.position());
        }
        channel.force(false);
        LOG.info(path + ": dropped a torn tail of " + (scan.dataEnd() - scan.validEnd())
            + " bytes at " + scan.validEnd() + " (an append that a crash interrupted; it was"
            + " never acknowledged)");
      }
      end = scan.validEnd();
      return scan.last();
    } catch (IOException e) {
      throw new StoreException("cannot read the journal " + path + ": " + e, e);
    }
  }

  private Scan scan(long after, Frames frames) throws IOException {
    long fileSize = channel.size();
    if (fileSize < HEADER_AREA) {
      throw new StoreCorruptedException(path + ": the journal is " + fileSize + " bytes, shorter"
          + " than its " + HEADER_AREA + "-byte header; it was cut or overwritten");
    }
    allocated = readSlots();
    if (fileSize < allocated) {
      throw new StoreCorruptedException(path + ": the journal is " + fileSize + " bytes but had"
          + " reached " + allocated + " bytes; it was cut after the fact, and the acknowledged"
          + " commits it held are lost");
    }
    long size = dataEnd(fileSize);
    long position = HEADER_AREA;
    long previous = -1;
    long last = after;
    int count = 0;
    while (position < size) {
      ByteBuffer header = read(position, (int) Math.min(HEADER_BYTES, size - position));
      if (header.capacity() < HEADER_BYTES) {
        break;
      }
      if (allZero(header.array(), 0, HEADER_BYTES)) {
        if (!allZero(read(position, (int) (size - position)).array(), 0,
            (int) (size - position))) {
          throw damaged(position, "a zeroed frame header is followed by data");
        }
        break;
      }
      byte[] h = header.array();
      if (header.getInt(0) != MAGIC || header.getInt(20) != crc(h, 0, 20)) {
        throw damaged(position, "a frame header fails its checksum");
      }
      int length = header.getInt(4);
      long sequence = header.getLong(8);
      if (length < 0 || position + HEADER_BYTES + length + 1 > size) {
        break;
      }
      byte[] payload = read(position + HEADER_BYTES, length + 1).array();
      if (header.getInt(16) != crc(payload, 0, length) || payload[length] != END_MARK) {
        if (position + HEADER_BYTES + length + 1 == size
            && hasZeroBlock(position + HEADER_BYTES, payload)) {
          break;
        }
        throw damaged(position, "the frame of commit " + sequence + " fails its checksum");
      }
      payload = Arrays.copyOf(payload, length);
      if (previous >= 0 && sequence != previous + 1) {
        throw damaged(position, "commit " + sequence + " follows commit " + previous);
      }
      if (sequence > after) {
        if (sequence != last + 1) {
          throw damaged(position, "commit " + sequence + " follows the checkpoint of commit "
              + after + ": the commits between are missing");
        }
        if (frames != null) {
          frames.frame(sequence, payload);
        }
        last = sequence;
        count++;
      }
      previous = sequence;
      position += HEADER_BYTES + length + 1;
    }
    return new Scan(last, count, position, size);
  }

  /** The newest valid slot's allocated length. */
  private long readSlots() throws IOException {
    long best = -1;
    long bestWrites = -1;
    for (int i = 0; i < 2; i++) {
      ByteBuffer slot = read((long) i * SLOT_DISTANCE, SLOT_BYTES);
      if (slot.getInt(0) == SLOT_MAGIC && slot.getInt(20) == crc(slot.array(), 0, 20)
          && slot.getLong(4) > bestWrites && slot.getLong(12) >= HEADER_AREA) {
        bestWrites = slot.getLong(4);
        best = slot.getLong(12);
      }
    }
    if (best < 0) {
      throw new StoreCorruptedException(path + ": neither header slot of the journal verifies;"
          + " it was overwritten, and the acknowledged length is unknown");
    }
    slotWrites = bestWrites;
    return best;
  }

  /** The offset after the last non-zero byte (at least the header area). */
  private long dataEnd(long fileSize) throws IOException {
    long blockEnd = fileSize;
    while (blockEnd > HEADER_AREA) {
      long block = Math.max(HEADER_AREA, blockEnd - ZERO_BLOCK * 16);
      byte[] bytes = read(block, (int) (blockEnd - block)).array();
      for (int i = bytes.length - 1; i >= 0; i--) {
        if (bytes[i] != 0) {
          return block + i + 1;
        }
      }
      blockEnd = block;
    }
    return HEADER_AREA;
  }

  /**
   * Appends the frame of commit {@code sequence} and forces it to stable storage: when this
   * returns, the commit survives a crash and a power cut. Runs on whichever caller leads the group
   * commit: an interrupt of that thread while it writes closes the channel
   * ({@link ClosedByInterruptException}), so the append reopens it and writes the same bytes at the
   * same offsets again; the interrupt flag is restored before returning.
   *
   * @throws StoreException if writing or forcing fails; the commit may then be durable or not, and
   *     the next append overwrites it
   */
  void append(long sequence, byte[] payload) {
    append(sequence, new Payload() {
      @Override
      public int length() {
        return payload.length;
      }

      @Override
      public void writeTo(ByteBuffer out) {
        out.put(payload);
      }
    });
  }

  /** Like {@link #append(long, byte[])}, with the payload written straight into the frame. */
  void append(long sequence, Payload payload) {
    int length = payload.length();
    int size = HEADER_BYTES + length + 1;
    ByteBuffer frame = frameFor(size);
    ((Buffer) frame).clear();
    ((Buffer) frame).position(HEADER_BYTES);
    payload.writeTo(frame);
    if (frame.position() != HEADER_BYTES + length) {
      throw new IllegalStateException("a payload of " + length + " bytes wrote "
          + (frame.position() - HEADER_BYTES));
    }
    frame.put(END_MARK);
    byte[] bytes = frame.array();
    frame.putInt(0, MAGIC).putInt(4, length).putLong(8, sequence)
        .putInt(16, crc(bytes, HEADER_BYTES, length));
    frame.putInt(20, crc(bytes, 0, 20));
    ((Buffer) frame).flip();
    boolean interrupted = Thread.interrupted();
    try {
      while (true) {
        try {
          write(frame.duplicate());
          break;
        } catch (ClosedByInterruptException e) {
          interrupted |= Thread.interrupted();
          reopen(e);
        } catch (IOException e) {
          throw new StoreException("cannot append to the journal " + path + ": " + e, e);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    end += size;
  }

  /** The kept frame buffer if it holds {@code size} bytes, else a bigger one (kept if not huge). */
  private ByteBuffer frameFor(int size) {
    ByteBuffer kept = frame;
    if (kept != null && kept.capacity() >= size) {
      return kept;
    }
    int capacity = Math.max(size, kept == null ? FRAME_START : kept.capacity() * 2);
    ByteBuffer grown = ByteBuffer.allocate(capacity);
    if (capacity <= FRAME_KEPT) {
      frame = grown;
    }
    return grown;
  }

  private void write(ByteBuffer frame) throws IOException {
    if (end + frame.remaining() > allocated) {
      grow(end + frame.remaining());
    }
    CommitCrashPoints.journalAppend(channel, end, frame);
    while (frame.hasRemaining()) {
      channel.write(frame, end + frame.position());
    }
    channel.force(false);
  }

  private void reopen(ClosedByInterruptException cause) {
    try {
      channel = io.open(path);
    } catch (IOException e) {
      e.addSuppressed(cause);
      throw new StoreException("cannot reopen the journal " + path + " after an interrupt: " + e,
          e);
    }
  }

  /**
   * Extends the file with written zeros (not a hole), forces it, and only then names the new length
   * in a slot. Written blocks are why a commit's {@code force(false)} is a data-only flush: an
   * append into a hole would make every commit's flush allocate blocks and journal the file's
   * metadata too.
   */
  private void grow(long needed) throws IOException {
    long target = (needed + GROWTH - 1) / GROWTH * GROWTH;
    long from = allocated;
    ByteBuffer zeros = ByteBuffer.allocate(ZERO_CHUNK);
    for (long at = from; at < target; at += ZERO_CHUNK) {
      ((Buffer) zeros).clear().limit((int) Math.min(ZERO_CHUNK, target - at));
      while (zeros.hasRemaining()) {
        channel.write(zeros, at + zeros.position());
      }
    }
    channel.force(true);
    writeSlot(target);
  }

  private void writeSlot(long length) throws IOException {
    slotWrites++;
    ByteBuffer slot = ByteBuffer.allocate(SLOT_BYTES).putInt(SLOT_MAGIC).putLong(slotWrites)
        .putLong(length);
    slot.putInt(crc(slot.array(), 0, 20));
    ((Buffer) slot).flip();
    long offset = (slotWrites % 2) * SLOT_DISTANCE;
    while (slot.hasRemaining()) {
      channel.write(slot, offset + slot.position());
    }
    allocated = length;
  }

  /**
   * Empties the journal durably (after a checkpoint holds every frame in it): a slot names the
   * bare header first, so a crash before the file shrinks never finds it shorter than named.
   *
   * @throws StoreException if it cannot be written
   */
  public void reset() {
    try {
      writeSlot(HEADER_AREA);
      channel.force(false);
      channel.truncate(HEADER_AREA);
      channel.force(true);
      end = HEADER_AREA;
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

  private void closeQuietly(Throwable primary) {
    try {
      channel.close();
    } catch (IOException e) {
      primary.addSuppressed(e);
    }
  }

  private StoreCorruptedException damaged(long position, String what) {
    return new StoreCorruptedException(path + ": " + what + " at byte " + position
        + " (not a torn append: the frame is complete, so it may have been acknowledged)");
  }
}
