package dev.oncely.persistence.internal;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.KeyCanary;
import java.io.IOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import java.util.zip.CRC32;

/**
 * The crash-tolerant layout of the MapDB engine: a journal that is the commit log, a
 * <em>working copy</em> that MapDB changes in place and readers read, and a <em>checkpoint
 * image</em> (the other copy) that is never written while the control file names it.
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
 * worth of changes wait behind it.
 *
 * <p><b>Checkpoint</b> (when the journal outgrows its limit, after a purge, and at close): close
 * the working copy and force it (it now holds commit n exactly); write the control slot "image =
 * this copy, commit n, length, CRC32" and force it (the checkpoint's commit point); empty the
 * journal; copy the new image over the old one, which becomes the next working copy. After a purge
 * the image is first rebuilt into a fresh file with only the live entries, so the files shrink.
 *
 * <p><b>Verify before write.</b> Opening first checks, reading only (no copy, replay, cut or
 * permission change): the control file, the image's length and CRC32, the key canary, and the
 * whole journal (its acknowledged length, every frame's checksum and sequence). Only a store that
 * passes is touched, so a refused open leaves every file byte for byte as it was found.
 *
 * <p><b>Crash semantics.</b> After any crash the working copy is distrusted (MapDB may have been
 * half-way through a change). Opening checks the image against the length and CRC32 in the
 * control file, copies it over the working copy (unless that already matches byte for byte), and
 * replays the journal frames after the image's commit. A crash before the control write finds the
 * old image and a journal still holding every commit since; a crash between the control write and
 * the journal reset finds frames the image already holds, skipped by sequence number; a crash
 * while copying finds a working copy that fails the checksum, copied again. A torn journal tail
 * was never acknowledged and is dropped ({@link Journal}). An image that fails its checksum is
 * replaced by the other copy when that one still matches it byte for byte (a clean close leaves
 * both equal); otherwise opening fails with {@link StoreCorruptedException}.
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

  private final Path[] paths;
  private final Path journalPath;
  private final FileIo io;
  private final long journalLimit;
  private final Path store;
  private final KeyCanary canary;
  private final int applyAt;
  private ControlFile control;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  /** Held by the applier while it writes the working copy, and by listings while they read it. */
  private final ReentrantReadWriteLock applyLock = new ReentrantReadWriteLock();
  private final ExecutorService applier;
  private Future<?> applied;
  private MapDbOverlay pending = new MapDbOverlay();
  private Journal journal;
  private MapDbFile working;
  private int image;
  private long imageSequence;
  private long sequence;
  private volatile StoreException broken;

  private MapDbCopies(Path store, FileIo io, long journalLimit, KeyCanary canary, int applyAt) {
    this.applyAt = applyAt;
    this.applier = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "oncely-mapdb-apply " + store);
      t.setDaemon(true);
      return t;
    });
    this.store = store;
    this.paths = new Path[] {copyPath(store, 'a'), copyPath(store, 'b')};
    this.journalPath = journalPath(store);
    this.io = io;
    this.journalLimit = journalLimit;
    this.canary = canary;
  }

  /** The path of copy {@code letter} ('a' or 'b') of the store at {@code store}. */
  public static Path copyPath(Path store, char letter) {
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
    return List.of(store, journalPath(store), a, b, tempOf(a), tempOf(b));
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
    MapDbCopies copies = new MapDbCopies(store, io, journalLimit, canary, applyAt);
    try {
      copies.start();
      return copies;
    } catch (RuntimeException | Error e) {
      copies.closeQuietly(e);
      throw e;
    }
  }

  private void start() {
    ControlFile.State state;
    byte[] storedCanary;
    try (ControlFile peek = ControlFile.openReadOnly(store)) {
      state = peek == null ? null : peek.read().orElse(null);
      storedCanary = state == null ? null : peek.readCanary();
    }
    if (state == null) {
      initialize();
      return;
    }
    int trusted = state.trusted();
    boolean moved = false;
    if (!matches(paths[trusted], state)) {
      if (!matches(paths[1 - trusted], state)) {
        throw new StoreCorruptedException(paths[trusted] + ": the checkpoint image of commit "
            + state.sequence() + " fails its checksum (length " + size(paths[trusted])
            + ", control file says " + state.length() + ") and " + paths[1 - trusted]
            + " is not a copy of it");
      }
      trusted = 1 - trusted;
      moved = true;
    }
    canary.check(storedCanary, store.toString());
    Journal.verify(journalPath, state.sequence(), (n, payload) -> {
      try {
        MapDbBatch.check(payload);
      } catch (IllegalArgumentException e) {
        throw new StoreCorruptedException(journalPath + ": commit " + n + ": " + e.getMessage(),
            e);
      }
    });
    // Verified: from here on the files may change.
    control = ControlFile.open(store, io);
    control.read();
    if (moved) {
      control.write(new ControlFile.State(trusted, state.sequence(), state.length(),
          state.crc()));
    }
    image = trusted;
    imageSequence = state.sequence();
    int other = 1 - trusted;
    if (!matches(paths[other], state)) {
      copy(paths[trusted], paths[other]);
    }
    working = MapDbFile.openExisting(paths[other], io);
    if (working.sequence() != imageSequence) {
      throw new StoreCorruptedException(paths[other] + ": holds commit " + working.sequence()
          + " but the control file says " + imageSequence);
    }
    MapDbFile target = working;
    journal = Journal.open(journalPath, io);
    sequence = journal.replay(imageSequence, (n, payload) -> {
      try {
        MapDbBatch.apply(payload, target);
      } catch (IllegalArgumentException e) {
        throw new StoreCorruptedException(journalPath + ": commit " + n + ": " + e.getMessage(),
            e);
      }
    });
  }

  private void initialize() {
    for (Path p : paths) {
      if (Files.exists(p)) {
        requireEmpty(p);
      }
    }
    if (size(journalPath) > Journal.HEADER_AREA) {
      throw new StoreCorruptedException(journalPath + " holds " + size(journalPath)
          + " bytes but the control file beside it is empty; refusing to guess which commits"
          + " were acknowledged");
    }
    control = ControlFile.open(store, io);
    journal = Journal.create(journalPath, io);
    Path temp = tempOf(paths[0]);
    MapDbFile.create(temp, 0, io).close();
    force(temp);
    try {
      StoreFiles.moveDurably(temp, paths[0]);
    } catch (IOException e) {
      throw new StoreException("cannot create " + paths[0] + ": " + e, e);
    }
    image = 0;
    imageSequence = 0;
    sequence = 0;
    control.writeCanary(canary.bytes());
    control.write(stateOf(0, 0));
    copy(paths[0], paths[1]);
    working = MapDbFile.openExisting(paths[1], io);
  }

  /** A control file never written may only meet copies left by an interrupted creation. */
  private void requireEmpty(Path copy) {
    MapDbFile file = MapDbFile.openExisting(copy, io);
    try {
      if (file.sequence() != 0 || file.walk() != 0) {
        throw new StoreCorruptedException(copy + " holds records but the control file beside it"
            + " is empty; refusing to guess which commits were acknowledged");
      }
    } finally {
      file.close();
    }
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
      byte[] payload = batch.payload();
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
   * Waits until the applier has written what it was handed (on the committer thread only, between
   * or inside group commits: the overlay in front then sees the working copy it judged "fresh"
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
   * Checkpoints with a rebuilt image holding only live entries, so space freed by a purge goes
   * back to the file system. Runs on the committer thread between commits.
   */
  public void compact() {
    checkpoint(true);
  }

  private void checkpoint(boolean rebuild) {
    applyPending();
    MapDbFile current = usable();
    int target = 1 - image;
    lock.writeLock().lock();
    try {
      CommitCrashPoints.checkpointStarted();
      current.sequence(sequence);
      if (rebuild) {
        Path temp = tempOf(paths[target]);
        MapDbFile fresh = MapDbFile.create(temp, sequence, io);
        try {
          for (int map = MapDbFile.RECORDS; map <= MapDbFile.EXPIRY; map++) {
            for (Map.Entry<byte[], byte[]> e : current.all(map)) {
              fresh.put(map, e.getKey(), e.getValue());
            }
          }
        } finally {
          fresh.close();
        }
        force(temp);
        working = null;
        current.close();
        StoreFiles.moveDurably(temp, paths[target]);
      } else {
        working = null;
        current.close();
        force(paths[target]);
      }
      CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.IMAGE_FORCED);
      control.write(stateOf(target, sequence));
      image = target;
      imageSequence = sequence;
      CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.BEFORE_JOURNAL_RESET);
      journal.reset();
      copy(paths[target], paths[1 - target]);
      working = MapDbFile.openExisting(paths[1 - target], io);
    } catch (IOException e) {
      broken = new StoreException("checkpoint of " + paths[target] + " failed: " + e
          + "; reopen the store to recover", e);
      throw broken;
    } catch (RuntimeException | Error e) {
      broken = new StoreException("checkpoint of " + paths[target] + " failed: " + e
          + "; reopen the store to recover", e);
      throw broken;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** The copy holding the checkpoint image now (0 = a, 1 = b). */
  public int image() {
    return image;
  }

  /** The sequence number of the last durable commit. */
  public long sequence() {
    return sequence;
  }

  /**
   * Checkpoints unless nothing was committed since the last one (so the journal is empty and both
   * copies are equal when the store is closed), then closes the files. Idempotent.
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
    lock.writeLock().lock();
    try {
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
      journal = null;
    } finally {
      lock.writeLock().unlock();
    }
    if (failure != null) {
      throw failure;
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

  private void closeQuietly(Throwable primary) {
    applier.shutdown();
    try {
      for (AutoCloseable c : new AutoCloseable[] {working, journal, control}) {
        if (c != null) {
          c.close();
        }
      }
    } catch (Exception e) {
      primary.addSuppressed(e);
    }
  }

  private static RuntimeException add(RuntimeException first, RuntimeException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  private ControlFile.State stateOf(int copy, long commit) {
    try (FileChannel channel = io.open(paths[copy])) {
      return new ControlFile.State(copy, commit, channel.size(), crc(channel));
    } catch (IOException e) {
      throw new StoreException("cannot read " + paths[copy] + ": " + e, e);
    }
  }

  /** Whether {@code file} has exactly the length and CRC32 {@code state} names; reads only. */
  private boolean matches(Path file, ControlFile.State state) {
    if (!Files.isRegularFile(file) || size(file) != state.length()) {
      return false;
    }
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      return channel.size() == state.length() && crc(channel) == state.crc();
    } catch (IOException e) {
      throw new StoreException("cannot read " + file + ": " + e, e);
    }
  }

  private static long size(Path file) {
    try {
      return Files.isRegularFile(file) ? Files.size(file) : -1;
    } catch (IOException e) {
      return -1;
    }
  }

  private static int crc(FileChannel channel) throws IOException {
    CRC32 crc = new CRC32();
    ByteBuffer buffer = ByteBuffer.allocate(COPY_CHUNK);
    long position = 0;
    while (true) {
      ((Buffer) buffer).clear();
      int n = channel.read(buffer, position);
      if (n < 0) {
        return (int) crc.getValue();
      }
      crc.update(buffer.array(), 0, n);
      position += n;
    }
  }

  /**
   * Copies {@code from} over {@code to} in place (same file, so no rename needs to reach the disk
   * before the copy is forced at its own checkpoint). Not forced: {@code to} becomes the working
   * copy, which is distrusted after a crash anyway.
   */
  private void copy(Path from, Path to) {
    try (FileChannel in = io.open(from); FileChannel out = io.open(to)) {
      long size = in.size();
      long position = 0;
      ByteBuffer buffer = ByteBuffer.allocateDirect(COPY_CHUNK);
      while (position < size) {
        ((Buffer) buffer).clear();
        int n = in.read(buffer, position);
        if (n < 0) {
          break;
        }
        ((Buffer) buffer).flip();
        while (buffer.hasRemaining()) {
          out.write(buffer, position + buffer.position());
        }
        position += n;
        if (position >= size / 2 && position - n < size / 2) {
          CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.COPYING);
        }
      }
      out.truncate(size);
    } catch (IOException e) {
      throw new StoreException("cannot copy " + from + " to " + to + ": " + e, e);
    }
  }

  private void force(Path file) {
    try (FileChannel channel = io.open(file)) {
      channel.force(true);
    } catch (IOException e) {
      throw new StoreException("cannot force " + file + ": " + e, e);
    }
  }

  private static Path tempOf(Path copy) {
    return copy.resolveSibling(copy.getFileName() + ".tmp");
  }
}
