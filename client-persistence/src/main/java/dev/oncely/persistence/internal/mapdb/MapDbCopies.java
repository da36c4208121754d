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
 * The crash-tolerant layout of the MapDB engine: a journal that is the commit log, a
 * <em>working copy</em> that MapDB changes in place and readers read, and a <em>checkpoint
 * image</em> (the other copy) that is never written while the control file names it. This class
 * runs commits and the applier; {@link MapDbRecovery} opens, {@link MapDbCheckpoint} checkpoints,
 * {@link MapDbFiles} holds the whole-file operations. "The committer" is whichever caller leads
 * the current group commit ({@link GroupCommitter}): one at a time, each seeing what the one
 * before wrote. It appends to the journal and hands overlays on; everything that writes the
 * MapDB files (applying, checkpoints) runs on the applier thread, which no caller's interrupt
 * reaches.
 *
 * <p><b>Commit point.</b> A group commit appends one checksummed frame holding all its changes to
 * the {@link Journal} and forces it: that one write plus one force is the commit point. Only then
 * are the changes handed to the {@link MapDbOverlay} of commits not yet applied (readers kept out
 * meanwhile, so they see whole groups only) and the callers released. Once the overlay holds
 * {@value #APPLY_AT} changes it is frozen and an applier thread writes it to the working copy,
 * while the committer goes on with a new overlay in front of it; point reads and group commits
 * read through both overlays to the working copy ({@link #read}), so what the applier changes is
 * never what they see. Before a checkpoint, and when a listing asks for it
 * ({@link MapDbBatch#requestApply}), the committer waits for the applier and applies the rest
 * itself; listings read the working copy alone ({@link #readApplied}), never while the applier
 * writes. The applier never holds up the committer unless {@value #BACKLOG_OVERLAYS} overlays'
 * worth of changes wait behind it. The pages MapDB writes are marked ({@link DirtyPages}), so the
 * next checkpoint brings the image along by copying those pages alone; each time
 * {@value #WRITE_BACK_PAGES} pages are written for the first time since the copy was opened, the
 * applier forces the working copy, so the checkpoint's own force, which commits wait for, is left
 * with fewer than that many new pages plus those written again since. The working copy is never
 * trusted after a crash, so forcing it early changes no crash outcome.
 *
 * <p><b>Checkpoint</b> (when the journal outgrows its limit, and at close): see
 * {@link MapDbCheckpoint}; its cost follows the changes since the last one. Purges delete in
 * place; MapDB reuses the space they free, and the image is rebuilt with only the live entries
 * ({@link #compactIfSparse}) only when free space is more than half the working copy.
 *
 * <p><b>Crash semantics.</b> After any crash the working copy is distrusted: opening checks the
 * image against the length and CRC32 in the control file, copies it over the working copy (unless
 * that already matches byte for byte) and replays the journal frames after the image's commit
 * ({@link MapDbRecovery}). A torn journal tail was never acknowledged and is dropped
 * ({@link Journal}). What a crash inside a checkpoint leaves is argued in {@link MapDbCheckpoint}.
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
   * Pages (16 MiB) MapDB may write into the working copy for the first time before the applier
   * forces it, off the commit path, so that the checkpoint's force, which commits wait for, does
   * not find them all at once.
   */
  static final int WRITE_BACK_PAGES = 4096;

  /** Free space share of the working copy above which a purge rebuilds the image. */
  static final double SPARSE = 0.5;

  private final Path store;
  private final Path[] paths;
  private final FileIo io;
  private final long journalLimit;
  private final int applyAt;
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
  private int image;
  private long imageSequence;
  private long sequence;
  private volatile StoreException broken;

  private MapDbCopies(Path store, Path[] paths, FileIo io, long journalLimit, int applyAt,
      MapDbRecovery.Opened opened) {
    this.store = store;
    this.paths = paths;
    this.io = io;
    this.journalLimit = journalLimit;
    this.applyAt = applyAt;
    this.control = opened.control();
    this.journal = opened.journal();
    this.working = opened.working();
    this.image = opened.image();
    this.imageSequence = opened.imageSequence();
    this.sequence = opened.sequence();
    this.checkpoints = new MapDbCheckpoint(paths, io, control, journal, opened.sums());
    this.applier = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "oncely-mapdb-apply " + store);
      t.setDaemon(true);
      return t;
    });
  }

  /** The path of copy {@code letter} ('a' or 'b') of the store at {@code store}. */
  static Path copyPath(Path store, char letter) {
    return store.resolveSibling(store.getFileName() + "." + letter);
  }

  /** The path of the journal of the store at {@code store}. */
  public static Path journalPath(Path store) {
    return store.resolveSibling(store.getFileName() + ".journal");
  }

  /** Every file the layout may hold for {@code store}: control, journal, copies, temp copy. */
  public static List<Path> filesOf(Path store) {
    Path a = copyPath(store, 'a');
    Path b = copyPath(store, 'b');
    return List.of(store, journalPath(store), a, b, MapDbFiles.tempOf(a),
        MapDbFiles.tempOf(b));
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
    Path[] paths = {copyPath(store, 'a'), copyPath(store, 'b')};
    return new MapDbCopies(store, paths, io, journalLimit, applyAt,
        new MapDbRecovery(store, paths, journalPath(store), io, canary).open());
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
    if (journal.size() >= journalLimit) {
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
      try {
        target.writeBackEvery(WRITE_BACK_PAGES, io);
      } catch (RuntimeException | Error e) {
        throw brokenBy("writing back", e);
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
    broken = new StoreException(doing + " commit " + sequence + " to " + paths[1 - image]
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
    applyPending();
    onApplier(() -> {
      MapDbFile current = usable();
      int target = 1 - image;
      lock.writeLock().lock();
      try {
        working = null;
        working = compact ? checkpoints.compact(current, target, sequence)
            : checkpoints.take(current, target, sequence);
        image = target;
        imageSequence = sequence;
      } catch (RuntimeException | Error e) {
        broken = new StoreException("checkpoint of " + paths[target] + " failed: " + e
            + "; reopen the store to recover", e);
        throw broken;
      } finally {
        lock.writeLock().unlock();
      }
    });
  }

  /** The copy holding the checkpoint image now (0 = a, 1 = b). */
  public int image() {
    return image;
  }

  /** The sequence number of the last durable commit. */
  long sequence() {
    return sequence;
  }

  /**
   * Checkpoints unless nothing was committed since the last one (so the journal is empty and both
   * copies are equal when the store is closed), closes the files and records the clean close
   * ({@link MapDbCleanClose}). Idempotent.
   */
  @Override
  public void close() {
    RuntimeException failure = null;
    if (broken == null && working != null && sequence != imageSequence) {
      try {
        checkpoint(false);
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
    MapDbFile last;
    lock.writeLock().lock();
    try {
      last = working;
      for (AutoCloseable c : new AutoCloseable[] {working, journal, control}) {
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
    if (last != null && broken == null && sequence == imageSequence) {
      recordCleanClose(last);
    }
  }

  /**
   * Records the clean close when the closed working copy {@code last} still equals the image: it
   * did when it was opened, so only the pages MapDB wrote into it since are compared. Forces it
   * first, so the marker never outlives a page of it. A failure only costs the next open its full
   * verification.
   */
  private void recordCleanClose(MapDbFile last) {
    Path copy = paths[1 - image];
    try {
      if (MapDbFiles.samePages(copy, paths[image], last.writtenPages(), DirtyPages.PAGE)) {
        MapDbFiles.force(io, copy);
        MapDbCleanClose.record(store,
            new MapDbCleanClose.Evidence(image, imageSequence, checkpoints.sums()));
      }
    } catch (StoreException e) {
      // Nothing recorded: the next open verifies in full.
    }
  }

  private MapDbFile usable() {
    StoreException b = broken;
    if (b != null) {
      throw new StoreException(b.getMessage(), b);
    }
    MapDbFile w = working;
    if (w == null) {
      throw new StoreException(paths[1 - image] + " is closed");
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
