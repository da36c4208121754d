package dev.oncely.persistence.internal;

import java.io.File;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.mapdb.DataInput2;
import org.mapdb.volume.Volume;

/**
 * A test-only crash point <em>inside</em> MapDB's own commit, for the kill tests: with the system
 * property {@value #PROPERTY}{@code =<n>} the JVM halts (status {@value CommitCrashHook#HALT_STATUS},
 * no shutdown hooks, like SIGKILL) at the n-th write MapDB makes to a main store file in this
 * process. MapDB writes its main files only while copying a committed log into them, so the halt
 * lands in the middle of that copy: the moment that leaves a plain MapDB store silently corrupt.
 * Without the property volumes are returned unwrapped.
 */
public final class CommitCrashPoints {
  /** The system property that arms the crash point. */
  public static final String PROPERTY = "oncely.test.mapdb.haltInsideCommit";

  private static final long HALT_AT = Long.getLong(PROPERTY, 0L);
  private static final AtomicLong WRITES = new AtomicLong();

  private CommitCrashPoints() {}

  /** Returns {@code volume}, wrapped to count main-file writes when the property is set. */
  static Volume wrap(String file, Volume volume) {
    if (HALT_AT <= 0 || file.contains(".wal.")) {
      return volume;
    }
    return new HaltingVolume(volume);
  }

  private static void write() {
    if (WRITES.incrementAndGet() == HALT_AT) {
      Runtime.getRuntime().halt(CommitCrashHook.HALT_STATUS);
    }
  }

  /** Delegates everything to a real volume and counts writes. */
  private static final class HaltingVolume extends Volume {
    private final Volume delegate;

    HaltingVolume(Volume delegate) {
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
      write();
      delegate.putLong(offset, value);
    }

    @Override
    public void putInt(long offset, int value) {
      write();
      delegate.putInt(offset, value);
    }

    @Override
    public void putByte(long offset, byte value) {
      write();
      delegate.putByte(offset, value);
    }

    @Override
    public void putData(long offset, byte[] src, int srcPos, int srcSize) {
      write();
      delegate.putData(offset, src, srcPos, srcSize);
    }

    @Override
    public void putData(long offset, ByteBuffer buf) {
      write();
      delegate.putData(offset, buf);
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

    @Override
    public void clear(long startOffset, long endOffset) {
      write();
      delegate.clear(startOffset, endOffset);
    }
  }
}
