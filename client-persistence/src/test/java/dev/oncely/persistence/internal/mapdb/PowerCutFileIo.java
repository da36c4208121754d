package dev.oncely.persistence.internal.mapdb;

import dev.oncely.persistence.internal.StoreFiles;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.mapdb.DataInput2;
import org.mapdb.volume.Volume;

/**
 * A power cut for the MapDB engine's files, in the manner of Lucene's
 * {@code MockDirectoryWrapper.crash()}: every channel and MapDB volume the engine opens goes
 * through here, which remembers, per file, the content at its last {@code force}/{@code sync} and
 * every write made since. {@link #cut} then stops all I/O and rewrites each file as a disk would
 * hold it after losing power: the forced content plus none, a random subset, or all of the later
 * writes, the last one kept possibly torn to a prefix. A file first seen by this object counts as
 * forced as it is (the engine renames only forced files into place).
 */
final class PowerCutFileIo implements FileIo {
  /** What a cut keeps of the writes no force covered. */
  enum Loss {
    /** Drops every unforced write. */
    ALL,
    /** Keeps a random subset, in order. */
    RANDOM_SUBSET,
    /** Keeps every unforced write but tears the last one of each file to a random prefix. */
    TEAR_LAST
  }

  private record Write(long offset, byte[] bytes, long truncateTo) {}

  private static final class FileState {
    byte[] durable;
    final List<Write> pending = new ArrayList<>();
  }

  private final Map<Path, FileState> files = new HashMap<>();
  private volatile boolean dead;
  /** Which files' writes, truncations and forces {@link #cutAt} counts; null: none. */
  private java.util.function.Predicate<Path> counted;
  private long countdown;

  @Override
  public FileChannel open(Path file) throws IOException {
    FileChannel real = StoreFiles.openOwnerOnly(file);
    synchronized (this) {
      checkAlive();
      state(file.toAbsolutePath());
    }
    return new RecordingChannel(file.toAbsolutePath(), real);
  }

  @Override
  public Volume volume(Path file, Volume volume) {
    synchronized (this) {
      state(file.toAbsolutePath());
    }
    return new RecordingVolume(file.toAbsolutePath(), volume);
  }

  /**
   * Cuts the power at the {@code operation}th write, truncation or force (counting from 1) of a
   * channel on a file {@code which} accepts: that one and every later one fail, as after
   * {@link #die}. Lands a cut on a chosen step of the engine's own I/O, a checkpoint's redo,
   * control slot and in-place writes among them.
   */
  synchronized void cutAt(long operation, java.util.function.Predicate<Path> which) {
    counted = which;
    countdown = operation;
  }

  /** Whether the power is off. */
  boolean isDead() {
    return dead;
  }

  /** Counts an operation on {@code file} and cuts the power when it is the armed one. */
  private void countOperation(Path file) throws IOException {
    if (counted != null && counted.test(file) && --countdown <= 0) {
      dead = true;
      throw new IOException("power lost at an armed operation on " + file);
    }
  }

  /** Cuts the power: every later write, truncation or force through this object fails. */
  synchronized void die() {
    dead = true;
  }

  /**
   * Rewrites each file to what survives the cut under {@code loss}. Call after {@link #die} once
   * nothing reads the files any more (MapDB maps them; a file shrunk under a mapping in use
   * faults).
   *
   * @return how many unforced writes were dropped or torn, over all files
   */
  synchronized int cut(Loss loss, Random random) throws IOException {
    dead = true;
    int lost = 0;
    for (Map.Entry<Path, FileState> e : files.entrySet()) {
      FileState s = e.getValue();
      List<Write> kept = new ArrayList<>();
      for (Write w : s.pending) {
        if (loss != Loss.ALL && (loss == Loss.TEAR_LAST || random.nextBoolean())) {
          kept.add(w);
        } else {
          lost++;
        }
      }
      if (loss == Loss.TEAR_LAST && !kept.isEmpty()) {
        Write last = kept.remove(kept.size() - 1);
        if (last.bytes() != null && last.bytes().length > 1) {
          int keep = random.nextInt(last.bytes().length);
          byte[] prefix = new byte[keep];
          System.arraycopy(last.bytes(), 0, prefix, 0, keep);
          kept.add(new Write(last.offset(), prefix, -1));
          lost++;
        } else {
          kept.add(last);
        }
      }
      byte[] content = s.durable;
      for (Write w : kept) {
        content = apply(content, w);
      }
      if (!e.getKey().toFile().exists() && s.durable.length == 0 && kept.isEmpty()) {
        continue;
      }
      try (FileChannel raw = FileChannel.open(e.getKey(), StandardOpenOption.WRITE,
          StandardOpenOption.CREATE)) {
        raw.write(ByteBuffer.wrap(content), 0);
        raw.truncate(content.length);
      }
    }
    return lost;
  }

  private static byte[] apply(byte[] content, Write w) {
    if (w.bytes() == null) {
      byte[] cut = new byte[(int) Math.min(content.length, w.truncateTo())];
      System.arraycopy(content, 0, cut, 0, cut.length);
      return cut;
    }
    long end = w.offset() + w.bytes().length;
    byte[] out = end > content.length ? Arrays.copyOf(content, (int) end) : content;
    System.arraycopy(w.bytes(), 0, out, (int) w.offset(), w.bytes().length);
    return out;
  }

  private FileState state(Path file) {
    return files.computeIfAbsent(file, f -> {
      FileState s = new FileState();
      s.durable = read(f);
      return s;
    });
  }

  private static byte[] read(Path file) {
    try {
      if (!file.toFile().exists()) {
        return new byte[0];
      }
      try (FileChannel raw = FileChannel.open(file, StandardOpenOption.READ)) {
        ByteBuffer buffer = ByteBuffer.allocate((int) raw.size());
        while (buffer.hasRemaining() && raw.read(buffer, buffer.position()) >= 0) {
          // reads until full
        }
        return buffer.array();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private synchronized void wrote(Path file, long offset, byte[] bytes) {
    state(file).pending.add(new Write(offset, bytes, -1));
  }

  private synchronized void truncated(Path file, long size) {
    state(file).pending.add(new Write(0, null, size));
  }

  private synchronized void forced(Path file) {
    FileState s = state(file);
    s.durable = read(file);
    s.pending.clear();
  }

  private void checkAlive() throws IOException {
    if (dead) {
      throw new IOException("power lost");
    }
  }

  private void checkAliveUnchecked() {
    if (dead) {
      throw new IllegalStateException("power lost");
    }
  }

  /** A channel that reports writes, truncations and forces; nothing passes after the cut. */
  private final class RecordingChannel extends FileChannel {
    private final Path file;
    private final FileChannel real;

    RecordingChannel(Path file, FileChannel real) {
      this.file = file;
      this.real = real;
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return real.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      synchronized (PowerCutFileIo.this) {
        checkAlive();
        countOperation(file);
        ByteBuffer copy = src.duplicate();
        int n = real.write(src, position);
        byte[] bytes = new byte[n];
        copy.get(bytes);
        wrote(file, position, bytes);
        return n;
      }
    }

    @Override
    public long size() throws IOException {
      return real.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      synchronized (PowerCutFileIo.this) {
        checkAlive();
        countOperation(file);
        real.truncate(size);
        truncated(file, size);
        return this;
      }
    }

    @Override
    public void force(boolean metaData) throws IOException {
      synchronized (PowerCutFileIo.this) {
        checkAlive();
        countOperation(file);
        real.force(metaData);
        forced(file);
      }
    }

    @Override
    public int read(ByteBuffer dst) {
      throw new UnsupportedOperationException("positional reads only");
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) {
      throw new UnsupportedOperationException("positional reads only");
    }

    @Override
    public int write(ByteBuffer src) {
      throw new UnsupportedOperationException("positional writes only");
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) {
      throw new UnsupportedOperationException("positional writes only");
    }

    @Override
    public long position() throws IOException {
      return real.position();
    }

    @Override
    public FileChannel position(long newPosition) {
      throw new UnsupportedOperationException("positional I/O only");
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) {
      throw new UnsupportedOperationException("not recorded");
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) {
      throw new UnsupportedOperationException("not recorded");
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) {
      throw new UnsupportedOperationException("not recorded");
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) {
      throw new UnsupportedOperationException("locks are not used here");
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) {
      throw new UnsupportedOperationException("locks are not used here");
    }

    @Override
    protected void implCloseChannel() throws IOException {
      real.close();
    }
  }

  /** A MapDB volume that reports every write and sync; nothing passes after the cut. */
  private final class RecordingVolume extends Volume {
    private final Path file;
    private final Volume delegate;

    RecordingVolume(Path file, Volume delegate) {
      this.file = file;
      this.delegate = delegate;
    }

    private void record(long offset, int length) {
      byte[] bytes = new byte[length];
      delegate.getData(offset, bytes, 0, length);
      wrote(file, offset, bytes);
    }

    @Override
    public void ensureAvailable(long offset) {
      checkAliveUnchecked();
      delegate.ensureAvailable(offset);
    }

    @Override
    public void truncate(long size) {
      synchronized (PowerCutFileIo.this) {
        checkAliveUnchecked();
        delegate.truncate(size);
        truncated(file, size);
      }
    }

    @Override
    public void putLong(long offset, long value) {
      synchronized (PowerCutFileIo.this) {
        checkAliveUnchecked();
        delegate.putLong(offset, value);
        record(offset, 8);
      }
    }

    @Override
    public void putInt(long offset, int value) {
      synchronized (PowerCutFileIo.this) {
        checkAliveUnchecked();
        delegate.putInt(offset, value);
        record(offset, 4);
      }
    }

    @Override
    public void putByte(long offset, byte value) {
      synchronized (PowerCutFileIo.this) {
        checkAliveUnchecked();
        delegate.putByte(offset, value);
        record(offset, 1);
      }
    }

    @Override
    public void putData(long offset, byte[] src, int srcPos, int srcSize) {
      synchronized (PowerCutFileIo.this) {
        checkAliveUnchecked();
        delegate.putData(offset, src, srcPos, srcSize);
        record(offset, srcSize);
      }
    }

    @Override
    public void putData(long offset, ByteBuffer buf) {
      synchronized (PowerCutFileIo.this) {
        checkAliveUnchecked();
        int n = buf.remaining();
        delegate.putData(offset, buf);
        record(offset, n);
      }
    }

    @Override
    public void clear(long startOffset, long endOffset) {
      synchronized (PowerCutFileIo.this) {
        checkAliveUnchecked();
        delegate.clear(startOffset, endOffset);
        record(startOffset, (int) (endOffset - startOffset));
      }
    }

    @Override
    public void sync() {
      synchronized (PowerCutFileIo.this) {
        checkAliveUnchecked();
        delegate.sync();
        forced(file);
      }
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
      if (!dead) {
        delegate.close();
      }
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
