package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import java.io.IOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Optional;
import java.util.zip.CRC32;

/**
 * The checkpoint record of the MapDB engine: a tiny file naming the commit sequence number the
 * image ({@code <store>.image}) holds, its exact length and CRC32, so opening can prove the image
 * is byte-for-byte the one that was checkpointed without reading a single record, and whether a
 * checkpoint's change of the image is still under way ({@link Pending}): then the pages it writes
 * are in the redo file ({@link RedoFile}), or the rebuilt image waits in the temp file for its
 * rename.
 *
 * <p>Layout: two slots at offsets 0 and {@value #SLOT_DISTANCE}, written in turn, so a torn write
 * can only damage the slot being written; the valid slot with the higher write counter wins.
 * <pre>
 *   magic "OMDB" | version u8 (3) | pending u8 (0 none, 1 redo, 2 rename) | pad u16
 *   write counter i64 | commit sequence i64 | image length i64 | image crc32 u32
 *   crc32 u32 over the 36 bytes before it
 * </pre>
 * Version 2 (two full MapDB copies {@code .a} and {@code .b}) had the same 40 bytes with the copy
 * holding the image (0 = a, 1 = b) where version 3 has the pending step; it is read so that such a
 * store converts ({@link MapDbRecovery}), and never written. Each write is one positional write
 * of 40 bytes followed by {@link FileChannel#force}. Written only at a checkpoint, never per
 * commit. At offset {@value #CANARY_OFFSET} the file also holds the store's {@link KeyCanary}
 * (u32 length, then its bytes), written once when the store is created, before the first slot.
 * Not thread-safe: only checkpoints write, one at a time, and opening reads before it starts.
 */
final class ControlFile implements AutoCloseable {
  /** The layout version this code writes. */
  public static final int VERSION = 3;
  /** The layout version of the two-copy release, read to convert it. */
  static final int TWO_COPY_VERSION = 2;

  static final int SLOT_DISTANCE = 4096;
  static final int SLOT_BYTES = 40;
  static final long CANARY_OFFSET = 2L * SLOT_DISTANCE;
  private static final int CANARY_MAX = 4096;
  private static final byte[] MAGIC = {'O', 'M', 'D', 'B'};

  /** A checkpoint step under way when the slot was written. */
  enum Pending {
    /** None: the image file is the image, past its named length. */
    NONE,
    /** The redo file holds pages of the image not yet written in place, or not yet forced. */
    REDO,
    /** The rebuilt image is in the temp file, not yet renamed over the image. */
    RENAME
  }

  /**
   * One decoded slot.
   *
   * @param sequence the commit sequence number of the image; the journal holds the commits after
   * @param length the image's length in bytes
   * @param crc the CRC32 of the image's first {@code length} bytes
   * @param pending the checkpoint step under way
   * @param twoCopyImage for a slot of the two-copy layout, the copy holding the image (0 = a,
   *     1 = b); -1 for a slot of this layout
   */
  public record State(long sequence, long length, int crc, Pending pending, int twoCopyImage) {
    /** A slot of this layout. */
    public State(long sequence, long length, int crc, Pending pending) {
      this(sequence, length, crc, pending, -1);
    }

    /** Validates the copy index. */
    public State {
      if (twoCopyImage < -1 || twoCopyImage > 1) {
        throw new IllegalArgumentException("copy must be -1, 0 or 1, was " + twoCopyImage);
      }
    }

    /** Whether the slot was written by the two-copy layout. */
    public boolean twoCopy() {
      return twoCopyImage >= 0;
    }

    /** The same image with {@code step} under way, as this layout writes it. */
    public State with(Pending step) {
      return new State(sequence, length, crc, step, -1);
    }
  }

  private final Path path;
  private final FileChannel channel;
  private long writes;

  private ControlFile(Path path, FileChannel channel) {
    this.path = path;
    this.channel = channel;
  }

  /**
   * Opens (creating it owner-only if missing) the control file at {@code path}.
   *
   * @throws StoreException if the file cannot be opened
   */
  public static ControlFile open(Path path, FileIo io) {
    try {
      return new ControlFile(path, io.open(path));
    } catch (IOException e) {
      throw new StoreException("cannot open the control file " + path + ": " + e, e);
    }
  }

  /**
   * Opens the control file at {@code path} for reading only, or returns null if it does not exist:
   * checking a store before opening it writes nothing, permissions included.
   *
   * @throws StoreException if the file cannot be opened
   */
  public static ControlFile openReadOnly(Path path) {
    if (!java.nio.file.Files.exists(path)) {
      return null;
    }
    try {
      return new ControlFile(path, FileChannel.open(path, java.nio.file.StandardOpenOption.READ));
    } catch (IOException e) {
      throw new StoreException("cannot open the control file " + path + ": " + e, e);
    }
  }

  /**
   * Returns the stored {@link KeyCanary} bytes, or null if none was written.
   *
   * @throws StoreException if the file cannot be read
   */
  public byte[] readCanary() {
    try {
      ByteBuffer length = ByteBuffer.allocate(4);
      channel.read(length, CANARY_OFFSET);
      int n = length.getInt(0);
      if (length.position() < 4 || n <= 0 || n > CANARY_MAX) {
        return null;
      }
      ByteBuffer bytes = ByteBuffer.allocate(n);
      while (bytes.hasRemaining()) {
        if (channel.read(bytes, CANARY_OFFSET + 4 + bytes.position()) < 0) {
          return null;
        }
      }
      return bytes.array();
    } catch (IOException e) {
      throw new StoreException("cannot read the control file " + path + ": " + e, e);
    }
  }

  /**
   * Durably stores the {@link KeyCanary} bytes.
   *
   * @throws StoreException if the write or the flush fails
   */
  public void writeCanary(byte[] canary) {
    if (canary.length > CANARY_MAX) {
      throw new IllegalArgumentException("canary of " + canary.length + " bytes exceeds "
          + CANARY_MAX);
    }
    ByteBuffer buffer = ByteBuffer.allocate(4 + canary.length).putInt(canary.length).put(canary);
    ((Buffer) buffer).flip();
    try {
      while (buffer.hasRemaining()) {
        channel.write(buffer, CANARY_OFFSET + buffer.position());
      }
      channel.force(false);
    } catch (IOException e) {
      throw new StoreException("cannot write the control file " + path + ": " + e, e);
    }
  }

  /** The file's path. */
  public Path path() {
    return path;
  }

  /**
   * Returns the newest valid slot, or empty when the file was never written (all zero or empty).
   *
   * @throws StoreCorruptedException if the file holds bytes but no slot verifies
   * @throws StoreException if a slot was written by another layout version (never treated as
   *     damage, so a downgrade cannot quarantine good files)
   */
  public Optional<State> read() {
    try {
      long size = channel.size();
      Slot best = null;
      boolean anyBytes = false;
      for (int i = 0; i < 2; i++) {
        ByteBuffer buffer = ByteBuffer.allocate(SLOT_BYTES);
        channel.read(buffer, (long) i * SLOT_DISTANCE);
        byte[] bytes = buffer.array();
        for (byte b : bytes) {
          anyBytes |= b != 0;
        }
        Slot slot = decode(bytes);
        if (slot != null && (best == null || slot.writes > best.writes)) {
          best = slot;
        }
      }
      if (best == null) {
        if (!anyBytes) {
          return Optional.empty();
        }
        throw new StoreCorruptedException(path + ": neither control slot verifies (file is "
            + size + " bytes; slots at 0 and " + SLOT_DISTANCE + " need " + SLOT_BYTES
            + " valid bytes each)");
      }
      writes = best.writes;
      return Optional.of(best.state);
    } catch (IOException e) {
      throw new StoreException("cannot read the control file " + path + ": " + e, e);
    }
  }

  /**
   * Durably records {@code state} in the slot not holding the newest one. Returns only after
   * {@link FileChannel#force} returned.
   *
   * @throws StoreException if the write or the flush fails; either slot may then be the newest
   */
  public void write(State state) {
    if (state.twoCopy()) {
      throw new IllegalArgumentException("the two-copy layout is read, never written");
    }
    writes++;
    ByteBuffer buffer = ByteBuffer.allocate(SLOT_BYTES)
        .put(MAGIC)
        .put((byte) VERSION)
        .put((byte) state.pending().ordinal())
        .putShort((short) 0)
        .putLong(writes)
        .putLong(state.sequence())
        .putLong(state.length())
        .putInt(state.crc());
    CRC32 crc = new CRC32();
    crc.update(buffer.array(), 0, SLOT_BYTES - 4);
    buffer.putInt((int) crc.getValue());
    // Through Buffer: ByteBuffer.flip() returning ByteBuffer is Java 9+ and missing on Android.
    ((Buffer) buffer).flip();
    try {
      long offset = (writes % 2) * SLOT_DISTANCE;
      while (buffer.hasRemaining()) {
        channel.write(buffer, offset + buffer.position());
      }
      channel.force(false);
    } catch (IOException e) {
      throw new StoreException("cannot write the control file " + path + ": " + e, e);
    }
  }

  /** A slot of the first layout: 28 bytes, version 1, its own CRC32 over the first 24. */
  private static boolean isVersionOneSlot(byte[] bytes) {
    if (bytes[4] != 1) {
      return false;
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, 24);
    return ByteBuffer.wrap(bytes, 24, 4).getInt() == (int) crc.getValue();
  }

  /** Closes the descriptor. Idempotent. */
  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new StoreException("cannot close the control file " + path + ": " + e, e);
    }
  }

  private record Slot(long writes, State state) {}

  private Slot decode(byte[] bytes) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    for (byte m : MAGIC) {
      if (in.get() != m) {
        return null;
      }
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, SLOT_BYTES - 4);
    if (ByteBuffer.wrap(bytes, SLOT_BYTES - 4, 4).getInt() != (int) crc.getValue()) {
      if (isVersionOneSlot(bytes)) {
        throw new StoreException(path + ": control file layout version 1 (two MapDB copies"
            + " without a journal) is not read by this library, which reads version " + VERSION
            + "; open it with the Oncely release that wrote it (it is left untouched)");
      }
      return null;
    }
    int version = in.get() & 0xff;
    if (version != VERSION && version != TWO_COPY_VERSION) {
      throw new StoreException(path + ": control file layout version " + version
          + " is not supported; this library reads versions " + TWO_COPY_VERSION + " and "
          + VERSION
          + " (a newer Oncely wrote it? it is left untouched)");
    }
    int step = in.get();
    in.getShort();
    long writeCount = in.getLong();
    long sequence = in.getLong();
    long length = in.getLong();
    int imageCrc = in.getInt();
    if (length < 0) {
      return null;
    }
    if (version == TWO_COPY_VERSION) {
      return step != 0 && step != 1 ? null : new Slot(writeCount,
          new State(sequence, length, imageCrc, Pending.NONE, step));
    }
    if (step < 0 || step >= Pending.values().length) {
      return null;
    }
    return new Slot(writeCount, new State(sequence, length, imageCrc, Pending.values()[step]));
  }
}
