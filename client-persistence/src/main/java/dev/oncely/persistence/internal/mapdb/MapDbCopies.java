package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.persistence.internal.CommitCrashHook;
import dev.oncely.persistence.internal.GroupCommitter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;

/**
 * The crash-tolerant layout of the MapDB engine: a journal that is the commit log, one
 * <em>checkpoint image</em> ({@code <store>.image}) that MapDB never writes, and a <em>working
 * view</em> of it, mapped copy-on-write ({@link PrivateMappedVolume}), that MapDB changes and
 * readers read: MapDB's writes land in private memory, never in the file. This class runs commits
 * and the applier; {@link MapDbRecovery} opens, {@link MapDbCheckpoint} checkpoints,
 * {@link MapDbFiles} holds the whole-file operations. "The committer" is whichever caller leads
 * the current group commit ({@link GroupCommitter}): one at a time, each seeing what the one
 * before wrote. It appends to the journal and hands overlays on; everything that writes MapDB
 * (applying, checkpoints) runs on the applier thread, which no caller's interrupt reaches.
 *
 * <p><b>Commit point.</b> A group commit appends one checksummed frame holding all its changes to
 * the {@link Journal} and forces it: that one write plus one force is the commit point. Only then
 * are the changes handed to the {@link MapDbOverlay} of commits not yet applied (readers kept out
 * meanwhile, so they see whole groups only) and the callers released. Once the overlay holds
 * {@value #APPLY_AT} changes it is frozen and an applier thread writes it to the view, while the
 * committer goes on with a new overlay in front of it; point reads and group commits read through
 * both overlays to the view ({@link #read}), so what the applier changes is never what they see.
 * Before a checkpoint, and when a listing asks for it ({@link MapDbBatch#requestApply}), the
 * committer waits for the applier and applies the rest itself; listings read the view alone
 * ({@link #readApplied}), never while the applier writes. The applier never holds up the
 * committer unless {@value #BACKLOG_OVERLAYS} overlays' worth of changes wait behind it. The pages
 * MapDB writes are marked ({@link DirtyPages}), so the next checkpoint writes those pages alone.
 *
 * <p><b>Checkpoint</b> (when the journal outgrows its limit, when MapDB has written
 * {@value #DIRTY_LIMIT_PAGES} pages since the last one, and at close): see
 * {@link MapDbCheckpoint}; its cost follows the changes since the last one. The private memory
 * the view holds is what MapDB wrote since the image was last mapped: a checkpoint that finds it
 * over {@value #HELD_PAGES_PER_BOUND} times the bound maps the image afresh, so it stays within
 * one more bound's worth of that. Purges delete in place; MapDB reuses the space they free, and
 * the image is rebuilt with only the live entries ({@link #compactIfSparse}) only when free space
 * is more than half of it.
 *
 * <p><b>Crash semantics</b> (a kill, or a power cut losing or tearing every write no force
 * covered). The view is private memory: no crash leaves any of it behind, so nothing on disk is
 * ever distrusted. The image file changes only inside a checkpoint, and only while a forced
 * control slot names a forced redo file holding every page being written (or, in a compaction, a
 * forced rebuilt image waiting to be renamed): a crash before that slot finds the old image,
 * untouched, and a journal holding every commit since it; a crash after it finds the redo, which
 * opening writes into the image again (whole pages at their own offsets: idempotent) before it
 * checks the image's length and CRC32, bytes past the named length ignored and cut off. Opening
 * then replays the journal frames after the image's commit onto the view ({@link MapDbRecovery});
 * a torn journal tail was never acknowledged and is dropped ({@link Journal}). The step-by-step
 * argument is in {@link MapDbCheckpoint}.
 */
public final class MapDbCopies implements GroupCommitter.Transactions<MapDbBatch>, AutoCloseable {
  private static final int COPY_CHUNK = 1 << 20;
  /**
   * Pending changes at which the overlay is applied: large enough that most intents are created
   * and finished inside one window at 64 callers, small enough (a few MB of records) to apply in
   * a few milliseconds.
   */
  static final int APPLY_AT = 2048;
  /** Overlays' worth of pending changes at which the committer waits for a busy applier. */
  static final int BACKLOG_OVERLAYS = 8;

  /**
   * Pages (32 MiB) MapDB may write into the working view before a checkpoint writes them into the
   * image, whatever the journal's size: a checkpoint's cost, which commits wait for, follows
   * what changed, up to this bound. At 1,000,000 records each commit writes pages spread over the
   * maps, so this bound, not the journal's, paces checkpoints: 32 MiB keeps the longest caller
   * wait within twice a fresh store's (a checkpoint of 64 MiB paused commits about 550 ms there);
   * the twice as many checkpoints cost no throughput because the view is kept across them
   * ({@link #HELD_PAGES_PER_BOUND}; measured in docs/benchmarks.md).
   */
  static final int DIRTY_LIMIT_PAGES = 8192;

  /**
   * Written pages, as a multiple of the checkpoint bound, that the working view may hold in
   * private memory across checkpoints (128 MiB) before a checkpoint drops it and maps the image
   * afresh. Keeping the view spares the commits after a checkpoint the page faults of a new mapping,
   * which took most of the applier's time at 1,000,000 records (measured in docs/benchmarks.md).
   */
  static final int HELD_PAGES_PER_BOUND = 4;

  /** Free space share of the working copy above which a purge rebuilds the image. */
  static final double SPARSE = 0.5;

  private final Path store;
  private final Path image;
  private final FileIo io;
  private final long journalLimit;
  private final int applyAt;
  private final int dirtyLimit;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  /** Held by the applier while it writes the working copy, and by listings while they read it. */
  private final ReentrantReadWriteLock applyLock = new ReentrantReadWriteLock();
  private final ExecutorService applier;
  private final ControlFile control;
  private final Journal journal;
  private final MapDbCheckpoint checkpoints;
  private Future<?> applied;
  private MapDbOverlay pending = new MapDbOverlay();
  private MapDbFile working;
  private long imageSequence;
  private long sequence;
  private volatile StoreException broken;

  private MapDbCopies(Path store, FileIo io, long journalLimit, int applyAt, int dirtyLimit,
      MapDbRecovery.Opened opened) {
    this.store = store;
    this.image = imagePath(store);
    this.io = io;
    this.journalLimit = journalLimit;
    this.applyAt = applyAt;
    this.dirtyLimit = dirtyLimit;
    this.control = opened.control();
    this.journal = opened.journal();
    this.working = opened.working();
    this.imageSequence = opened.imageSequence();
    this.sequence = opened.sequence();
    this.checkpoints = new MapDbCheckpoint(image, RedoFile.pathOf(store), io, control, journal,
        opened.sums(), HELD_PAGES_PER_BOUND * dirtyLimit);
    this.applier = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "oncely-mapdb-apply " + store);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * The path of copy {@code letter} ('a' or 'b') of a store of the two-copy layout at
   * {@code store}, which opening converts.
   */
  static Path copyPath(Path store, char letter) {
    return store.resolveSibling(store.getFileName() + "." + letter);
  }

  /** The path of the MapDB image of the store at {@code store}. */
  public static Path imagePath(Path store) {
    return store.resolveSibling(store.getFileName() + ".image");
  }

  /** The path of the journal of the store at {@code store}. */
  public static Path journalPath(Path store) {
    return store.resolveSibling(store.getFileName() + ".journal");
  }

  /**
   * Every file the layout may hold for {@code store}: control, journal, image, redo, temp image,
   * and the copies (and their temp files) of the two-copy layout a store may still hold.
   */
  public static List<Path> filesOf(Path store) {
    Path image = imagePath(store);
    Path a = copyPath(store, 'a');
    Path b = copyPath(store, 'b');
    return List.of(store, journalPath(store), image, RedoFile.pathOf(store),
        MapDbFiles.tempOf(image), a, b, MapDbFiles.tempOf(a), MapDbFiles.tempOf(b));
  }

  /**
   * Opens the layout at {@code store}, creating it when it does not exist, and recovers it: the
   * image checked, the working copy rebuilt when needed, the journal replayed. Closes everything
   * it opened if it fails.
   *
   * @param journalLimit journal bytes after which a checkpoint runs
   * @param canary checks the stored canary against the store's encryption setting
   * @throws StoreCorruptedException if no copy holds the checkpoint image, or the journal is
   *     missing, cut or damaged; no file was changed
   * @throws dev.oncely.client.StoreEncryptionException if the canary needs another key; no
   *     file was changed
   */
  public static MapDbCopies open(Path store, FileIo io, long journalLimit, KeyCanary canary) {
    return open(store, io, journalLimit, canary, APPLY_AT);
  }

  /**
   * Like {@link #open(Path, FileIo, long, KeyCanary)}, handing the overlay to the applier every
   * {@code applyAt} changes instead of {@value #APPLY_AT} (tests use a few, so the applier runs
   * beside every crash and power cut they stage).
   */
  public static MapDbCopies open(Path store, FileIo io, long journalLimit, KeyCanary canary,
      int applyAt) {
    if (applyAt < 1) {
      throw new IllegalArgumentException("applyAt must be >= 1, was " + applyAt);
    }
    return open(store, io, journalLimit, canary, applyAt, DIRTY_LIMIT_PAGES);
  }

  /**
   * Like {@link #open(Path, FileIo, long, KeyCanary, int)}, checkpointing once MapDB has written
   * {@code dirtyLimit} pages instead of {@value #DIRTY_LIMIT_PAGES} (a test uses a few).
   */
  static MapDbCopies open(Path store, FileIo io, long journalLimit, KeyCanary canary,
      int applyAt, int dirtyLimit) {
    if (applyAt < 1 || dirtyLimit < 1) {
      throw new IllegalArgumentException("applyAt and dirtyLimit must be >= 1, were " + applyAt
          + " and " + dirtyLimit);
    }
    return new MapDbCopies(store, io, journalLimit, applyAt, dirtyLimit,
        new MapDbRecovery(store, io, canary).open());
  }

  /**
   * Runs {@code read} on the working copy under the commits not yet applied to it: every
   * acknowledged commit, whole groups only, never while a checkpoint swaps the copies.
   *
   * @throws StoreException if the store is closed or broken
   */
  public <R> R read(Function<MapDbView, R> read) {
    lock.readLock().lock();
    try {
      return read.apply(pending.over(usable()));
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Runs {@code read} on the working copy alone, which holds every commit applied so far: call it
   * after a group commit with {@link MapDbBatch#requestApply} returned, to see every commit
   * acknowledged before that. Range reads go here: the working copy does not change while they
   * run, so an index and the records it names agree.
   *
   * @throws StoreException if the store is closed or broken
   */
  public <R> R readApplied(Function<MapDbFile, R> read) {
    lock.readLock().lock();
    applyLock.readLock().lock();
    try {
      return read.apply(usable());
    } finally {
      applyLock.readLock().unlock();
      lock.readLock().unlock();
    }
  }

  @Override
  public MapDbBatch begin() {
    if (journal.size() >= journalLimit || usable().writtenPageCount() >= dirtyLimit) {
      checkpoint(false);
    }
    return new MapDbBatch(usable(), pending);
  }

  @Override
  public void commit(MapDbBatch batch) {
    if (!batch.isEmpty()) {
      Journal.Payload payload = batch.payload();
      CommitCrashHook.beforeCommit();
      journal.append(sequence + 1, payload);
      CommitCrashHook.afterCommit();
      sequence++;
      lock.writeLock().lock();
      try {
        batch.publish();
      } catch (RuntimeException | Error e) {
        throw brokenBy("publishing", e);
      } finally {
        lock.writeLock().unlock();
      }
    }
    if (batch.applyRequested()) {
      applyPending();
    } else if (pending.size() >= applyAt) {
      handToApplier();
    }
  }

  /**
   * Freezes the overlay and has the applier thread write it to the working copy, unless the
   * applier is still busy with the last one (then the overlay keeps growing, up to
   * {@value #BACKLOG_OVERLAYS} times the apply size, where the committer waits for it).
   */
  private void handToApplier() {
    if (applied != null && !applied.isDone()) {
      if (pending.size() < BACKLOG_OVERLAYS * applyAt) {
        return;
      }
      awaitApplier();
    } else if (applied != null) {
      awaitApplier();
    }
    MapDbOverlay frozen = pending;
    MapDbFile target = usable();
    lock.writeLock().lock();
    try {
      pending = new MapDbOverlay(frozen);
    } finally {
      lock.writeLock().unlock();
    }
    applied = applier.submit(() -> {
      applyLock.writeLock().lock();
      try {
        frozen.applyTo(target);
      } catch (RuntimeException | Error e) {
        throw brokenBy("applying", e);
      } finally {
        applyLock.writeLock().unlock();
      }
      lock.writeLock().lock();
      try {
        pending.belowApplied();
      } finally {
        lock.writeLock().unlock();
      }
    });
  }

  /**
   * Waits until the applier has written what it was handed (by the committer only, between or
   * inside group commits: the overlay in front then sees the working copy it judged "fresh"
   * against).
   *
   * @throws StoreException if applying failed (the store is then broken: reopen it)
   */
  public void awaitApplier() {
    Future<?> running = applied;
    if (running == null) {
      return;
    }
    boolean interrupted = false;
    try {
      while (true) {
        try {
          running.get();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          throw e.getCause() instanceof StoreException s ? s : brokenBy("applying", e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    applied = null;
  }

  /** Applies every pending commit to the working copy, readers kept out. */
  private void applyPending() {
    awaitApplier();
    if (pending.size() == 0) {
      return;
    }
    onApplier(() -> {
      lock.writeLock().lock();
      applyLock.writeLock().lock();
      try {
        pending.applyTo(usable());
        pending.clear();
      } catch (RuntimeException | Error e) {
        throw brokenBy("applying", e);
      } finally {
        applyLock.writeLock().unlock();
        lock.writeLock().unlock();
      }
    });
  }

  /**
   * Runs {@code work} on the applier thread and waits for it. Work on the MapDB files never runs
   * on a caller's thread: MapDB grows its files through channels that an interrupt of the thread
   * using them would close.
   */
  private void onApplier(Runnable work) {
    awaitApplier();
    applied = applier.submit(work);
    awaitApplier();
  }

  private StoreException brokenBy(String doing, Throwable e) {
    broken = new StoreException(doing + " commit " + sequence + " to the view of " + image
        + " failed; the commit is durable in the journal: reopen the store to recover", e);
    return broken;
  }

  @Override
  public void rollback(MapDbBatch batch) {
    // The working copy is untouched until the journal frame is durable: nothing to undo.
  }

  /**
   * After a purge: rebuilds the image with only the live entries when free space is more than
   * {@value #SPARSE} of the working copy, so space the purges freed goes back to the file system;
   * otherwise MapDB reuses it. Runs inside a group commit, after the batch's frame is durable.
   */
  public void compactIfSparse() {
    applyPending();
    if (usable().freeShare() > SPARSE) {
      checkpoint(true);
    }
  }

  private void checkpoint(boolean compact) {
    checkpoint(compact, true);
  }

  /** Checkpoints; the working view is mapped again when {@code reopen}, else left null. */
  private void checkpoint(boolean compact, boolean reopen) {
    applyPending();
    onApplier(() -> {
      MapDbFile current = usable();
      lock.writeLock().lock();
      try {
        working = null;
        working = compact ? checkpoints.compact(current, sequence)
            : checkpoints.take(current, sequence, reopen);
        imageSequence = sequence;
      } catch (RuntimeException | Error e) {
        broken = new StoreException("checkpoint of " + image + " failed: " + e
            + "; reopen the store to recover", e);
        throw broken;
      } finally {
        lock.writeLock().unlock();
      }
    });
  }

  /** How many checkpoints mapped the image afresh instead of keeping the working view. */
  int viewsMappedAfresh() {
    return checkpoints.viewsMappedAfresh();
  }

  /** The sequence number of the last durable commit. */
  long sequence() {
    return sequence;
  }

  /**
   * Checkpoints unless nothing was committed since the last one (so the journal is empty and the
   * image holds every commit when the store is closed), closes the files and records the clean close
   * ({@link MapDbCleanClose}). Idempotent.
   */
  @Override
  public void close() {
    RuntimeException failure = null;
    if (broken == null && working != null && sequence != imageSequence) {
      try {
        checkpoint(false, false);
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    try {
      awaitApplier();
    } catch (RuntimeException e) {
      if (e != broken) {
        failure = add(failure, e);
      }
    }
    applier.shutdown();
    lock.writeLock().lock();
    try {
      if (working != null) {
        try {
          working.release();
        } catch (RuntimeException e) {
          failure = add(failure, e);
        }
      }
      for (AutoCloseable c : new AutoCloseable[] {journal, control}) {
        try {
          if (c != null) {
            c.close();
          }
        } catch (Exception e) {
          RuntimeException r = e instanceof RuntimeException re ? re
              : new StoreException("cannot close " + c + ": " + e, e);
          failure = add(failure, r);
        }
      }
      working = null;
    } finally {
      lock.writeLock().unlock();
    }
    if (failure != null) {
      throw failure;
    }
    if (broken == null && sequence == imageSequence) {
      MapDbCleanClose.record(store, new MapDbCleanClose.Evidence(imageSequence,
          checkpoints.sums()));
    }
  }

  private MapDbFile usable() {
    StoreException b = broken;
    if (b != null) {
      throw new StoreException(b.getMessage(), b);
    }
    MapDbFile w = working;
    if (w == null) {
      throw new StoreException(store + " is closed");
    }
    return w;
  }

  private static RuntimeException add(RuntimeException first, RuntimeException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }
}
