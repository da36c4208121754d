package dev.oncely.persistence.internal;

import java.io.File;
import java.nio.ByteBuffer;
import java.util.BitSet;
import org.mapdb.DataInput2;
import org.mapdb.volume.Volume;

/**
 * The {@value #PAGE}-byte pages of one MapDB file that MapDB wrote since the file was opened: a
 * volume wrapper marks every page a write touches, so a checkpoint can bring the other copy up to
 * this one by copying those pages alone. Every write method of {@link Volume} either is one of the
 * ones overridden here or is implemented by {@code Volume} in terms of them, so no write escapes
 * the marks. Not thread-safe: the engine has one MapDB writer at a time.
 */
final class DirtyPages {
  /** The page size the marks use. */
  static final int PAGE = 4096;

  private final BitSet pages = new BitSet();

  /** {@code volume}, wrapped so its writes mark pages here. */
  Volume wrap(Volume volume) {
    return new Marking(volume);
  }

  /** The pages marked so far, as page indexes (page i covers bytes i * PAGE to (i + 1) * PAGE). */
  BitSet marked() {
    return (BitSet) pages.clone();
  }

  private void mark(long offset, long length) {
    if (length <= 0) {
      return;
    }
    pages.set(Math.toIntExact(offset / PAGE), Math.toIntExact((offset + length - 1) / PAGE) + 1);
  }

  /** Delegates everything to the real volume, marking the pages each write touches. */
  private final class Marking extends Volume {
    private static final int PACKED_LONG_MAX = 10;
    private final Volume delegate;

    Marking(Volume delegate) {
      this.delegate = delegate;
    }

    @Override
    public void ensureAvailable(long offset) {
      delegate.ensureAvailable(offset);
    }

    @Override
    public void truncate(long size) {
      delegate.truncate(size);
    }

    @Override
    public void putLong(long offset, long value) {
      mark(offset, 8);
      delegate.putLong(offset, value);
    }

    @Override
    public void putInt(long offset, int value) {
      mark(offset, 4);
      delegate.putInt(offset, value);
    }

    @Override
    public void putByte(long offset, byte value) {
      mark(offset, 1);
      delegate.putByte(offset, value);
    }

    @Override
    public void putData(long offset, byte[] src, int srcPos, int srcSize) {
      mark(offset, srcSize);
      delegate.putData(offset, src, srcPos, srcSize);
    }

    @Override
    public void putData(long offset, ByteBuffer buf) {
      mark(offset, buf.remaining());
      delegate.putData(offset, buf);
    }

    @Override
    public void putDataOverlap(long offset, byte[] src, int srcPos, int srcSize) {
      mark(offset, srcSize);
      delegate.putDataOverlap(offset, src, srcPos, srcSize);
    }

    @Override
    public void putUnsignedShort(long offset, int value) {
      mark(offset, 2);
      delegate.putUnsignedShort(offset, value);
    }

    @Override
    public void putUnsignedByte(long offset, int value) {
      mark(offset, 1);
      delegate.putUnsignedByte(offset, value);
    }

    @Override
    public void putSixLong(long offset, long value) {
      mark(offset, 6);
      delegate.putSixLong(offset, value);
    }

    @Override
    public int putPackedLong(long offset, long value) {
      mark(offset, PACKED_LONG_MAX);
      return delegate.putPackedLong(offset, value);
    }

    @Override
    public void clear(long startOffset, long endOffset) {
      mark(startOffset, endOffset - startOffset);
      delegate.clear(startOffset, endOffset);
    }

    @Override
    public void clearOverlap(long startOffset, long endOffset) {
      mark(startOffset, endOffset - startOffset);
      delegate.clearOverlap(startOffset, endOffset);
    }

    @Override
    public long getLong(long offset) {
      return delegate.getLong(offset);
    }

    @Override
    public int getInt(long offset) {
      return delegate.getInt(offset);
    }

    @Override
    public byte getByte(long offset) {
      return delegate.getByte(offset);
    }

    @Override
    public DataInput2 getDataInput(long offset, int size) {
      return delegate.getDataInput(offset, size);
    }

    @Override
    public void getData(long offset, byte[] bytes, int bytesPos, int size) {
      delegate.getData(offset, bytes, bytesPos, size);
    }

    @Override
    public void close() {
      closed.set(true);
      delegate.close();
    }

    @Override
    public void sync() {
      delegate.sync();
    }

    @Override
    public int sliceSize() {
      return delegate.sliceSize();
    }

    @Override
    public boolean isSliced() {
      return delegate.isSliced();
    }

    @Override
    public long length() {
      return delegate.length();
    }

    @Override
    public boolean isReadOnly() {
      return delegate.isReadOnly();
    }

    @Override
    public File getFile() {
      return delegate.getFile();
    }

    @Override
    public boolean getFileLocked() {
      return delegate.getFileLocked();
    }
  }
}
