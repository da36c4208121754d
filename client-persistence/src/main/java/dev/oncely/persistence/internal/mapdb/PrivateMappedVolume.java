package dev.oncely.persistence.internal.mapdb;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.mapdb.volume.ByteBufferVol;

/**
 * The MapDB volume of the image's working view: the image file mapped copy-on-write
 * ({@link FileChannel.MapMode#PRIVATE}) in MapDB's slices, so MapDB reads the image through the
 * page cache and its writes land in private memory, never in the file. To grow (a private mapping
 * past the end of a file faults) it extends the file with zeros (a hole where the file system
 * allows) and maps the new slices privately too: bytes past the image's length named in the
 * control file are no part of the image (opening cuts them off), so the image is unchanged, and
 * what MapDB writes there stays private memory outside the Java heap like every other write.
 * {@link #sync} does nothing;
 * {@link #close} (MapDB's, which writes its header checksum first) keeps the slices, so a
 * checkpoint can read the pages MapDB wrote after MapDB has closed, until {@link #release}.
 */
final class PrivateMappedVolume extends ByteBufferVol {
  private static final Object UNSAFE;
  private static final Method INVOKE_CLEANER;

  static {
    Object unsafe = null;
    Method cleaner = null;
    try {
      Class<?> type = Class.forName("sun.misc.Unsafe");
      Field field = type.getDeclaredField("theUnsafe");
      field.setAccessible(true);
      unsafe = field.get(null);
      cleaner = type.getMethod("invokeCleaner", ByteBuffer.class);
    } catch (ReflectiveOperationException | RuntimeException e) {
      // No early unmapping: the mappings go when the buffers are collected.
    }
    UNSAFE = unsafe;
    INVOKE_CLEANER = cleaner;
  }

  private final Path file;
  /** The file's length when it was mapped: the bytes the mapped slices hold. */
  private final long mappedLength;
  /** The pages MapDB wrote since the file was mapped: private memory until {@link #release}. */
  private final java.util.BitSet held = new java.util.BitSet();
  private boolean released;

  private PrivateMappedVolume(Path file, int sliceShift, long mappedLength) {
    super(false, sliceShift, false);
    this.file = file;
    this.mappedLength = mappedLength;
  }

  /**
   * Maps {@code file} privately. A last slice the file fills only in part is read into memory.
   *
   * @throws IOException if the file cannot be mapped
   */
  static PrivateMappedVolume map(Path file, int sliceShift) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      long length = channel.size();
      PrivateMappedVolume volume = new PrivateMappedVolume(file, sliceShift, length);
      int size = 1 << sliceShift;
      int count = Math.toIntExact((length + size - 1) / size);
      ByteBuffer[] slices = new ByteBuffer[count];
      try {
        for (int i = 0; i < count; i++) {
          long position = (long) i * size;
          if (position + size <= length) {
            slices[i] = channel.map(FileChannel.MapMode.PRIVATE, position, size);
          } else {
            ByteBuffer tail = ByteBuffer.allocate(size);
            ((Buffer) tail).limit((int) (length - position));
            while (tail.hasRemaining()) {
              if (channel.read(tail, position + tail.position()) < 0) {
                break;
              }
            }
            ((Buffer) tail).clear();
            slices[i] = tail;
          }
        }
      } catch (IOException | RuntimeException e) {
        unmapAll(slices);
        throw e;
      }
      volume.slices = slices;
      return volume;
    }
  }

  @Override
  public void ensureAvailable(long offset) {
    long needed = (offset + sliceSize - 1) >>> sliceShift;
    if (needed <= slices.length) {
      return;
    }
    growLock.lock();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      ByteBuffer[] current = slices;
      if (needed <= current.length) {
        return;
      }
      long end = needed << sliceShift;
      if (channel.size() < end) {
        channel.write(ByteBuffer.allocate(1), end - 1);
      }
      ByteBuffer[] grown = Arrays.copyOf(current, Math.toIntExact(needed));
      for (int i = current.length; i < grown.length; i++) {
        grown[i] = channel.map(FileChannel.MapMode.PRIVATE, (long) i << sliceShift, sliceSize);
      }
      slices = grown;
    } catch (IOException e) {
      throw new org.mapdb.DBException.VolumeIOError(e);
    } finally {
      growLock.unlock();
    }
  }

  @Override
  public void truncate(long size) {
    growLock.lock();
    try {
      int keep = Math.toIntExact((size + sliceSize - 1) >>> sliceShift);
      if (keep < slices.length) {
        ByteBuffer[] current = slices;
        slices = Arrays.copyOf(current, keep);
        unmapAll(Arrays.copyOfRange(current, keep, current.length));
      }
    } finally {
      growLock.unlock();
    }
  }

  /** Copies {@code length} bytes at {@code offset} into {@code into} (offset 0). */
  void read(long offset, byte[] into, int length) {
    getData(offset, into, 0, length);
  }

  /** The file's length when it was mapped. */
  long mappedLength() {
    return mappedLength;
  }

  /**
   * Counts {@code written} (page indexes) among the pages this mapping holds privately and returns
   * how many it holds: every page MapDB wrote since the file was mapped, across the MapDB
   * instances that used it.
   */
  int hold(java.util.BitSet written) {
    held.or(written);
    return held.cardinality();
  }

  /**
   * Makes the volume usable by a new MapDB instance after the last one {@linkplain #close closed}
   * it; the slices, private pages included, are kept.
   *
   * @throws IllegalStateException if it was released
   */
  void reopen() {
    growLock.lock();
    try {
      if (released) {
        throw new IllegalStateException(file + ": the view was released");
      }
      closed.set(false);
    } finally {
      growLock.unlock();
    }
  }

  /** Marks the volume closed; the slices stay readable until {@link #release}. */
  @Override
  public void close() {
    closed.set(true);
  }

  /**
   * Drops the slices: the private pages go back to the system at once where the JVM allows it,
   * else when the buffers are collected. Nothing may read the volume afterwards. Idempotent.
   */
  void release() {
    growLock.lock();
    try {
      if (!released) {
        released = true;
        closed.set(true);
        ByteBuffer[] current = slices;
        slices = new ByteBuffer[0];
        unmapAll(current);
      }
    } finally {
      growLock.unlock();
    }
  }

  private static void unmapAll(ByteBuffer[] buffers) {
    for (ByteBuffer b : buffers) {
      if (b instanceof MappedByteBuffer mapped && INVOKE_CLEANER != null) {
        try {
          INVOKE_CLEANER.invoke(UNSAFE, mapped);
        } catch (ReflectiveOperationException | RuntimeException e) {
          // Left to the collector.
        }
      }
    }
  }

  /** Nothing to write: the image changes only at a checkpoint. */
  @Override
  public void sync() {}

  @Override
  public long length() {
    return (long) slices.length << sliceShift;
  }

  @Override
  public boolean isReadOnly() {
    return false;
  }

  @Override
  public File getFile() {
    return file.toFile();
  }

  @Override
  public boolean getFileLocked() {
    return false;
  }
}
