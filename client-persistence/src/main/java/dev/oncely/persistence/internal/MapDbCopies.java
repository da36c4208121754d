package dev.oncely.persistence.internal;

import dev.oncely.client.spi.StoreCorruptedException;
import dev.oncely.client.spi.StoreException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Two MapDB copies of the store, <b>a</b> and <b>b</b>, and the {@link ControlFile} that names the
 * trusted one: the crash-tolerant layout that holds the durability guarantee although MapDB does
 * not replay its own log.
 *
 * <p><b>Invariant:</b> the trusted copy is never written. Each group commit goes to the other
 * copy: replay the previous commit's changes (so it catches up), apply the batch, MapDB commit,
 * then record "trusted = this copy, sequence n+1" in the control file. That control write is the
 * <b>commit point</b>; nobody is acknowledged before it returned. A crash anywhere before it
 * leaves the old trusted copy intact and the half-written copy untrusted; a crash after it finds
 * the new copy complete, because MapDB's commit had returned (and fsynced) first. On open the
 * untrusted copy is rebuilt by copying the trusted file, so both copies hold the same state again.
 *
 * <p>Readers use the trusted copy under its read lock; the committer takes the write lock of the
 * copy it writes, so a reader that started before a flip finishes before that copy changes.
 */
public final class MapDbCopies implements GroupCommitter.Transactions<MapDbBatch>, AutoCloseable {
  /** MapDB keeps a transaction in memory: a rebuild commits in steps (the file is not yet used). */
  private static final int REBUILD_COMMIT_EVERY = 5_000;

  private final Path[] paths;
  private final ControlFile control;
  private final Consumer<MapDbFile> verifier;
  private final MapDbFile[] files = new MapDbFile[2];
  private final ReentrantReadWriteLock[] locks =
      {new ReentrantReadWriteLock(), new ReentrantReadWriteLock()};
  private volatile int trusted;
  private long sequence;
  private boolean otherInSync;
  private boolean otherNeedsCopy;
  private List<MapDbBatch.Change> carry = List.of();

  private MapDbCopies(Path store, ControlFile control, Consumer<MapDbFile> verifier) {
    this.paths = new Path[] {copyPath(store, 'a'), copyPath(store, 'b')};
    this.control = control;
    this.verifier = verifier;
  }

  /** The path of copy {@code letter} ('a' or 'b') of the store at {@code store}. */
  public static Path copyPath(Path store, char letter) {
    return store.resolveSibling(store.getFileName() + "." + letter);
  }

  /** Every file the layout may hold for {@code store}: control, copies, MapDB logs, temp copy. */
  public static List<Path> filesOf(Path store) {
    List<Path> files = new ArrayList<>(List.of(store));
    for (char letter : new char[] {'a', 'b'}) {
      Path copy = copyPath(store, letter);
      files.add(copy);
      files.addAll(MapDbFile.logsOf(copy));
      files.add(tempOf(copy));
    }
    return files;
  }

  /**
   * Opens the layout at {@code store}, creating it when it does not exist, choosing the trusted
   * copy and rebuilding the other one from it. Closes everything it opened if it fails.
   *
   * @param verifier checks the content of a copy (after its MapDB structure and sequence number
   *     were checked), throwing {@link StoreCorruptedException} when it is damaged
   * @throws StoreCorruptedException if no copy holding every acknowledged commit verifies
   */
  public static MapDbCopies open(Path store, Consumer<MapDbFile> verifier) {
    ControlFile control = ControlFile.open(store);
    MapDbCopies copies = new MapDbCopies(store, control, verifier);
    try {
      copies.start();
      return copies;
    } catch (RuntimeException | Error e) {
      copies.closeQuietly(e);
      throw e;
    }
  }

  private void start() {
    ControlFile.State state = control.read().orElse(null);
    if (state == null) {
      initialize();
      return;
    }
    trusted = state.trusted();
    sequence = state.sequence();
    int other = 1 - trusted;
    StoreCorruptedException trustedFailure = null;
    try {
      files[trusted] = openVerified(trusted, sequence);
    } catch (StoreCorruptedException e) {
      trustedFailure = e;
    }
    if (trustedFailure != null) {
      if (!state.otherInSync()) {
        throw trustedFailure;
      }
      try {
        files[other] = openVerified(other, sequence);
      } catch (StoreCorruptedException e) {
        trustedFailure.addSuppressed(e);
        throw trustedFailure;
      }
      trusted = other;
      control.write(new ControlFile.State(trusted, sequence, false));
      otherInSync = false;
      copyTrustedToOther();
      return;
    }
    otherInSync = state.otherInSync();
    copyTrustedToOther();
  }

  private void initialize() {
    for (Path p : paths) {
      if (Files.exists(p)) {
        requireEmpty(p);
      }
    }
    files[0] = MapDbFile.create(paths[0], 0);
    files[1] = MapDbFile.create(paths[1], 0);
    syncDirectory();
    trusted = 0;
    sequence = 0;
    otherInSync = true;
    control.write(new ControlFile.State(0, 0, true));
  }

  /** A control file never written may only meet copies left by an interrupted creation. */
  private static void requireEmpty(Path copy) {
    MapDbFile file = MapDbFile.openExisting(copy);
    try {
      if (file.sequence() != 0 || file.walk() != 0) {
        throw new StoreCorruptedException(copy + " holds records but the control file beside it"
            + " is empty; refusing to guess which commits were acknowledged");
      }
    } finally {
      file.close();
    }
  }

  private MapDbFile openVerified(int copy, long expectedSequence) {
    MapDbFile file = MapDbFile.openExisting(paths[copy]);
    try {
      long actual = file.sequence();
      if (actual != expectedSequence) {
        throw new StoreCorruptedException(paths[copy] + ": holds commit " + actual
            + " but the control file says " + expectedSequence);
      }
      verifier.accept(file);
      return file;
    } catch (RuntimeException e) {
      file.closeQuietly(e);
      throw e;
    }
  }

  /** Opens a byte-for-byte copy of the verified trusted file: its structure is checked again. */
  private MapDbFile openCopied(int copy) {
    MapDbFile file = MapDbFile.openExisting(paths[copy]);
    try {
      if (file.sequence() != sequence) {
        throw new StoreCorruptedException(paths[copy] + ": the copy holds commit "
            + file.sequence() + " instead of " + sequence);
      }
      file.walk();
      return file;
    } catch (RuntimeException e) {
      file.closeQuietly(e);
      throw e;
    }
  }

  /** Makes the untrusted copy a byte-for-byte copy of the trusted one; then both are in sync. */
  private void copyTrustedToOther() {
    int other = 1 - trusted;
    if (files[other] != null) {
      files[other].close();
      files[other] = null;
    }
    Path target = paths[other];
    Path temp = tempOf(target);
    control.write(new ControlFile.State(trusted, sequence, false));
    otherInSync = false;
    try {
      MapDbFile.deleteWithLogs(target);
      StoreFiles.createOwnerOnly(temp);
      Files.copy(paths[trusted], temp, StandardCopyOption.REPLACE_EXISTING);
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        channel.force(true);
      }
      StoreFiles.moveDurably(temp, target);
    } catch (IOException e) {
      throw new StoreException("cannot copy " + paths[trusted] + " to " + target + ": " + e, e);
    }
    files[other] = openCopied(other);
    carry = List.of();
    otherNeedsCopy = false;
    control.write(new ControlFile.State(trusted, sequence, true));
    otherInSync = true;
  }

  /**
   * Runs {@code read} on the trusted copy while no commit can write to that copy.
   *
   * @throws StoreException if the store is closed
   */
  public <R> R read(Function<MapDbFile, R> read) {
    while (true) {
      int t = trusted;
      ReentrantReadWriteLock.ReadLock lock = locks[t].readLock();
      lock.lock();
      try {
        if (t == trusted) {
          MapDbFile file = files[t];
          if (file == null) {
            throw new StoreException(paths[t] + " is closed");
          }
          return read.apply(file);
        }
      } finally {
        lock.unlock();
      }
    }
  }

  @Override
  public MapDbBatch begin() {
    int target = 1 - trusted;
    locks[target].writeLock().lock();
    try {
      if (otherNeedsCopy) {
        copyTrustedToOther();
      }
      MapDbBatch.replay(carry, files[target]);
      return new MapDbBatch(files[target]);
    } catch (RuntimeException | Error e) {
      otherNeedsCopy = true;
      locks[target].writeLock().unlock();
      throw e;
    }
  }

  @Override
  public void commit(MapDbBatch batch) {
    int target = 1 - trusted;
    MapDbFile file = batch.target();
    if (batch.changes().isEmpty()) {
      file.rollback();
      locks[target].writeLock().unlock();
      return;
    }
    if (otherInSync) {
      control.write(new ControlFile.State(trusted, sequence, false));
      otherInSync = false;
    }
    file.sequence(sequence + 1);
    CommitCrashHook.beforeCommit();
    file.commit();
    control.write(new ControlFile.State(target, sequence + 1, false));
    CommitCrashHook.afterCommit();
    sequence++;
    carry = List.copyOf(batch.changes());
    trusted = target;
    locks[target].writeLock().unlock();
  }

  @Override
  public void rollback(MapDbBatch batch) {
    int target = batch.target() == files[0] ? 0 : 1;
    otherNeedsCopy = true;
    try {
      batch.target().rollback();
    } finally {
      if (locks[target].writeLock().isHeldByCurrentThread()) {
        locks[target].writeLock().unlock();
      }
    }
  }

  /**
   * Rewrites both copies with only their live entries, so space freed by deletes returns to the
   * file system (MapDB's own compaction does nothing with transactions on). Runs on the committer
   * thread between commits.
   */
  public void compact() {
    int other = 1 - trusted;
    locks[other].writeLock().lock();
    try {
      files[other].close();
      files[other] = null;
      Path temp = tempOf(paths[other]);
      MapDbFile fresh = MapDbFile.create(temp, sequence);
      try {
        int uncommitted = 0;
        for (int map = MapDbFile.RECORDS; map <= MapDbFile.EXPIRY; map++) {
          for (Map.Entry<byte[], byte[]> e : files[trusted].all(map)) {
            fresh.put(map, e.getKey(), e.getValue());
            if (++uncommitted == REBUILD_COMMIT_EVERY) {
              fresh.commit();
              uncommitted = 0;
            }
          }
        }
        fresh.commit();
      } finally {
        fresh.close();
      }
      MapDbFile.deleteWithLogs(paths[other]);
      StoreFiles.moveDurably(temp, paths[other]);
      files[other] = openVerified(other, sequence);
      carry = List.of();
      control.write(new ControlFile.State(other, sequence, true));
      trusted = other;
      otherInSync = true;
    } catch (IOException e) {
      otherNeedsCopy = true;
      throw new StoreException("cannot compact " + paths[other] + ": " + e, e);
    } catch (RuntimeException e) {
      otherNeedsCopy = true;
      throw e;
    } finally {
      locks[other].writeLock().unlock();
    }
    int old = 1 - trusted;
    locks[old].writeLock().lock();
    try {
      copyTrustedToOther();
    } catch (RuntimeException e) {
      otherNeedsCopy = true;
      throw e;
    } finally {
      locks[old].writeLock().unlock();
    }
  }

  /**
   * Brings the untrusted copy up to date and records that both copies match, so a copy damaged
   * later while the store is closed can be replaced by the other. Call after the last commit.
   */
  public void syncOther() {
    int other = 1 - trusted;
    locks[other].writeLock().lock();
    try {
      if (otherNeedsCopy) {
        copyTrustedToOther();
        return;
      }
      if (otherInSync) {
        return;
      }
      MapDbBatch.replay(carry, files[other]);
      files[other].sequence(sequence);
      files[other].commit();
      carry = List.of();
      control.write(new ControlFile.State(trusted, sequence, true));
      otherInSync = true;
    } finally {
      locks[other].writeLock().unlock();
    }
  }

  /** The copy readers use now (0 = a, 1 = b). */
  public int trusted() {
    return trusted;
  }

  /** The commit sequence number of the trusted copy. */
  public long sequence() {
    return sequence;
  }

  /** Closes both copies and the control file. Idempotent. */
  @Override
  public void close() {
    RuntimeException failure = null;
    for (int i = 0; i < 2; i++) {
      locks[i].writeLock().lock();
      try {
        if (files[i] != null) {
          files[i].close();
          files[i] = null;
        }
      } catch (RuntimeException e) {
        failure = add(failure, e);
      } finally {
        locks[i].writeLock().unlock();
      }
    }
    try {
      control.close();
    } catch (RuntimeException e) {
      failure = add(failure, e);
    }
    if (failure != null) {
      throw failure;
    }
  }

  private void closeQuietly(Throwable primary) {
    try {
      close();
    } catch (RuntimeException e) {
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

  private void syncDirectory() {
    try {
      StoreFiles.syncDirectory(paths[0].toAbsolutePath().getParent());
    } catch (IOException e) {
      throw new StoreException("cannot sync the directory of " + paths[0] + ": " + e, e);
    }
  }

  private static Path tempOf(Path copy) {
    return copy.resolveSibling(copy.getFileName() + ".tmp");
  }
}
