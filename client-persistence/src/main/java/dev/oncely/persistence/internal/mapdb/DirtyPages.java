package dev.oncely.persistence.internal.mapdb;

import java.util.BitSet;
import org.mapdb.volume.Volume;

/**
 * The {@value #PAGE}-byte pages of one MapDB file that MapDB wrote since the file was opened: a
 * volume wrapper marks every page a write touches, so a checkpoint writes those pages alone into
 * the image. Every write method of {@link Volume} either is one of the
 * ones overridden here or is implemented by {@code Volume} in terms of them, so no write escapes
 * the marks. Not thread-safe: the engine has one MapDB writer at a time.
 */
final class DirtyPages {
  /** The page size the marks use. */
  static final int PAGE = 4096;

  private final BitSet pages = new BitSet();
  /** Pages marked: read by other threads, so the engine can bound a checkpoint's work. */
  private final java.util.concurrent.atomic.AtomicInteger count =
      new java.util.concurrent.atomic.AtomicInteger();

  /** {@code volume}, wrapped so its writes mark pages here. */
  Volume wrap(Volume volume) {
    return new Marking(volume);
  }

  /** The pages marked so far, as page indexes (page i covers bytes i * PAGE to (i + 1) * PAGE). */
  BitSet marked() {
    return (BitSet) pages.clone();
  }

  /** How many pages are marked. */
  int count() {
    return count.get();
  }

  private void mark(long offset, long length) {
    if (length <= 0) {
      return;
    }
    int last = Math.toIntExact((offset + length - 1) / PAGE);
    for (int page = Math.toIntExact(offset / PAGE); page <= last; page++) {
      if (!pages.get(page)) {
        pages.set(page);
        count.incrementAndGet();
      }
    }
  }

  /** Marks the pages each write touches. */
  private final class Marking extends ForwardingVolume {
    Marking(Volume delegate) {
      super(delegate);
    }

    @Override
    protected void written(long offset, long length) {
      mark(offset, length);
    }
  }
}
