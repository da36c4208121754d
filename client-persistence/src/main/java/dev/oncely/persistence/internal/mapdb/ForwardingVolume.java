package dev.oncely.persistence.internal.mapdb;

import java.io.File;
import java.nio.ByteBuffer;
import org.mapdb.DataInput2;
import org.mapdb.volume.Volume;

/**
 * A MapDB {@link Volume} that hands every call to a real one and reports each write's range to
 * {@link #written} first. Every write method of {@code Volume} either is overridden here or is
 * implemented by {@code Volume} in terms of those that are, so no write escapes the report.
 */
abstract class ForwardingVolume extends Volume {
  /** The most bytes a packed long takes (7 bits per byte). */
  private static final int PACKED_LONG_MAX = 10;

  private final Volume delegate;

  ForwardingVolume(Volume delegate) {
    this.delegate = delegate;
  }

  /** Called before the real volume writes {@code length} bytes at {@code offset}. */
  protected abstract void written(long offset, long length);

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
    written(offset, 8);
    delegate.putLong(offset, value);
  }

  @Override
  public void putInt(long offset, int value) {
    written(offset, 4);
    delegate.putInt(offset, value);
  }

  @Override
  public void putByte(long offset, byte value) {
    written(offset, 1);
    delegate.putByte(offset, value);
  }

  @Override
  public void putData(long offset, byte[] src, int srcPos, int srcSize) {
    written(offset, srcSize);
    delegate.putData(offset, src, srcPos, srcSize);
  }

  @Override
  public void putData(long offset, ByteBuffer buf) {
    written(offset, buf.remaining());
    delegate.putData(offset, buf);
  }

  @Override
  public void putDataOverlap(long offset, byte[] src, int srcPos, int srcSize) {
    written(offset, srcSize);
    delegate.putDataOverlap(offset, src, srcPos, srcSize);
  }

  @Override
  public void putUnsignedShort(long offset, int value) {
    written(offset, 2);
    delegate.putUnsignedShort(offset, value);
  }

  @Override
  public void putUnsignedByte(long offset, int value) {
    written(offset, 1);
    delegate.putUnsignedByte(offset, value);
  }

  @Override
  public void putSixLong(long offset, long value) {
    written(offset, 6);
    delegate.putSixLong(offset, value);
  }

  @Override
  public int putPackedLong(long offset, long value) {
    written(offset, PACKED_LONG_MAX);
    return delegate.putPackedLong(offset, value);
  }

  @Override
  public void clear(long startOffset, long endOffset) {
    written(startOffset, endOffset - startOffset);
    delegate.clear(startOffset, endOffset);
  }

  @Override
  public void clearOverlap(long startOffset, long endOffset) {
    written(startOffset, endOffset - startOffset);
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
    return ByteBufferInput.of(delegate.getDataInput(offset, size));
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
