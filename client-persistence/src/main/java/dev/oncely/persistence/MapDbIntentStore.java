package dev.oncely.persistence;

import dev.oncely.client.DueTime;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoreLockedException;
import dev.oncely.client.StoreRules;
import dev.oncely.client.UnfinishedEntry;
import dev.oncely.client.spi.DueClaim;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.client.spi.OwnerLock;
import dev.oncely.client.spi.StoreClosing;
import dev.oncely.persistence.internal.mapdb.FileIo;
import dev.oncely.persistence.internal.GroupCommitter;
import dev.oncely.persistence.internal.mapdb.MapDbBatch;
import dev.oncely.persistence.internal.mapdb.MapDbCopies;
import dev.oncely.persistence.internal.mapdb.MapDbDueIndex;
import dev.oncely.persistence.internal.mapdb.MapDbRecords;
import dev.oncely.persistence.internal.ReadCache;
import dev.oncely.persistence.internal.StoreFiles;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A durable {@link IntentStore} on MapDB 3 whose commit is one checksummed append plus one
 * {@code force} per group commit: a record acknowledged as durable is never lost and never
 * silently wrong after any crash or power cut, and the files always open (or fail with a typed
 * error naming the path).
 *
 * <p><b>Layout</b> for {@code open(dir/intents.db)}:
 * <ul>
 *   <li>{@code intents.db.journal}: the commit log. One frame per group commit: magic, payload
 *       length, commit sequence number, CRC32 of the payload, CRC32 of the header, then the
 *       group's changes (map, key, value or removal);
 *   <li>{@code intents.db.image}: the <em>checkpoint image</em>, one MapDB file
 *       ({@code StoreDirect}: no write-ahead log, no transactions), maps of {@code byte[]}:
 *       records by SHA-256 lookup key, an index of unfinished records by creation time (each
 *       entry a small stub: id and due time), an index of finished records by expiry, business
 *       ids. MapDB never writes it: readers and group commits use a <em>working view</em>, the
 *       image mapped copy-on-write, whose changes stay in private memory until a checkpoint;
 *   <li>{@code intents.db.redo}: the pages a checkpoint is writing into the image, forced first;
 *   <li>{@code intents.db}: the control file, two checksummed slots written in turn, naming the
 *       image's commit sequence number, its length and CRC32, and whether a redo is pending;
 *   <li>{@code intents.db.lock}: the owner lock ({@link java.nio.channels.FileChannel#tryLock}).
 * </ul>
 * Every record value is the {@code RecordCodec} format: versioned, CRC32-checked, optionally
 * AES-256-GCM sealed ({@link StoreOptions.Builder#encryption}); the stubs seal the key likewise.
 *
 * <p><b>Commit point.</b> Writes from all threads are grouped: the first caller that finds no
 * commit in progress leads the group and commits it on its own thread, the others wait once to be
 * told their result (a lone caller wakes no thread). A group's writes run against the
 * working view plus the commits not yet applied to it plus the group's own changes; then its
 * frame is appended to the journal and forced. <b>That force is the commit point</b>: only after
 * it are the changes handed to the in-memory overlay of commits not yet applied (readers kept out
 * for those microseconds) and the callers released. Every couple of thousand changes the overlay
 * is handed to an applier thread that writes it to the working view while commits go on (and
 * applies the rest, the committer waiting, before a checkpoint and before a listing; checkpoints
 * run there too, so no caller's interrupt reaches MapDB's files), so a record created and finished
 * in between is written to MapDB once, its unfinished-index entry never, and MapDB's own work is
 * off the commit path. Point reads see the overlay in front of the working view; listings read the
 * working view once everything acknowledged before them is applied.
 *
 * <p><b>Checkpoint</b> (journal over {@link StoreOptions.Builder#journalLimit}, default 64 MiB;
 * 32 MiB of pages written; at close): write the pages MapDB wrote since the last checkpoint to the
 * redo file and force it, write "image of commit n, length, CRC32, redo pending" to the control
 * file and force it, empty the journal, write the pages into the image in place and force it,
 * write "nothing pending", and reopen MapDB on the same view, which now reads as the image (the
 * image is mapped afresh once the view holds 128 MiB of written pages). Purges delete in place (MapDB reuses the
 * space); only when free space is more than half the image does a purge rebuild it with the live
 * entries, so the file shrinks.
 *
 * <p><b>Opening verifies before it writes.</b> The control file, the image's checksum, the
 * encryption canary (stored in the control file when the store is created) and the whole journal
 * are checked with reads only; a refused open ({@link StoreCorruptedException},
 * {@link dev.oncely.client.StoreEncryptionException}) leaves every file byte for byte as it
 * was, and {@link CorruptionPolicy#QUARANTINE} moves aside the original bytes. The journal names
 * the length it has reached in its header, so a journal cut at a frame boundary or deleted is
 * {@link StoreCorruptedException}, never a silent loss of acknowledged commits.
 *
 * <p><b>Crash semantics.</b> The working view is private memory, so a crash leaves none of it:
 * opening writes a redo the control file names into the image again, checks the image against
 * length and CRC32 and replays the journal frames after the image's commit. A kill or power cut before a frame's force leaves a torn tail, which fails its
 * checksum and is dropped: it was never acknowledged. A frame that is complete but fails its
 * checksum, a gap in the sequence numbers, or an image (or a named redo) that fails its checksum,
 * is damage: {@link StoreCorruptedException} naming the path (or,
 * under {@link CorruptionPolicy#QUARANTINE}, every file moved aside and an empty store). A crash
 * inside a checkpoint finds either the old image and the whole journal, or the redo naming the
 * new image, written again, and frames it already holds (skipped by sequence number). A store
 * of the two-copy layout ({@code intents.db.a}, {@code .b}) converts on its first open.
 *
 * <p><b>File-system assumptions.</b> {@code force} reaches stable storage; a rename and a
 * directory fsync are atomic and durable; a 40-byte write at a 4096-byte-aligned offset never
 * damages bytes outside its own 4 KiB block. Local disks only: network file systems may not honour
 * locks, fsync or shared memory maps. Files are created owner-only (POSIX 600) where POSIX
 * permissions exist.
 *
 * <p><b>Due-time index.</b> {@link #claimDue} walks an index of the unfinished records by due time
 * that lives in memory only (nothing in the files, so nothing a crash could leave wrong): built by
 * the first claim after the store opened, from the unfinished index's stubs, and kept by every
 * group commit once its frame is durable. See {@code docs/persistence-mapdb.md}.
 *
 * <p>Thread-safe; share one instance. Point reads never wait for a force, only for the short
 * hand-over of a committed group to the overlay or a checkpoint's remapping of the view. Listings and
 * purges wait for one group commit, in which everything acknowledged before them reaches the
 * working view.
 */
public final class MapDbIntentStore implements IntentStore {
  private static final Logger LOG = Logger.getLogger(MapDbIntentStore.class.getName());

  private final Path path;
  private final OwnerLock lock;
  private final MapDbCopies copies;
  private final MapDbRecords records;
  private final ReadCache cache;
  private final GroupCommitter<MapDbBatch> committer;
  private final StoreClosing closing;
  /** Built by the first claim (in a group commit), kept by every commit after it; null before. */
  private volatile MapDbDueIndex dueIndex;

  private MapDbIntentStore(Path path, OwnerLock lock, MapDbCopies copies, MapDbRecords records,
      StoreOptions options) {
    this.path = path;
    this.lock = lock;
    this.copies = copies;
    this.records = records;
    this.cache = new ReadCache(options.cacheFactory(), options.cacheSize());
    this.committer = new GroupCommitter<>("MapDB store " + path, new Commits(), options.maxBatch());
    this.closing = new StoreClosing(path.toString());
  }

  /**
   * Opens the store at {@code file} with {@link StoreOptions#defaults()}.
   *
   * @see #open(Path, StoreOptions)
   */
  public static MapDbIntentStore open(Path file) {
    return open(file, StoreOptions.defaults());
  }

  /**
   * Opens the store whose control file is {@code file}, creating it (and its directory,
   * owner-only) when missing. Returns once the checkpoint image matched its checksum (a pending
   * redo written into it first) and the journal is replayed onto its working view.
   *
   * @throws StoreLockedException if another process or another instance in this JVM has it open
   * @throws StoreCorruptedException if its files fail verification and the policy is
   *     {@link CorruptionPolicy#FAIL}; nothing is changed
   * @throws dev.oncely.client.StoreEncryptionException if records cannot be opened with {@code options}' key
   * @throws StoreException if the directory is not writable or a file cannot be read or written
   */
  public static MapDbIntentStore open(Path file, StoreOptions options) {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(options, "options");
    Path path = file.toAbsolutePath();
    StoreFiles.checkDirectory(path);
    return OwnerLock.openOwned(path.toFile(), lock -> {
      MapDbRecords records = new MapDbRecords(options.encryption());
      MapDbCopies copies = openCopies(path, records, options);
      return new MapDbIntentStore(path, lock, copies, records, options);
    });
  }

  private static MapDbCopies openCopies(Path path, MapDbRecords records, StoreOptions options) {
    try {
      return openChecked(path, records, options);
    } catch (StoreCorruptedException e) {
      if (options.corruptionPolicy() != CorruptionPolicy.QUARANTINE) {
        throw e;
      }
      DamagedStores.quarantineAndReport(path, MapDbCopies.filesOf(path), options, e);
      return openChecked(path, records, options);
    }
  }

  private static MapDbCopies openChecked(Path path, MapDbRecords records,
      StoreOptions options) {
    return MapDbCopies.open(path, FileIo.DEFAULT, options.journalLimit(),
        new KeyCanary(options.encryption()));
  }

  /** The control file's path; the other files sit beside it. */
  public Path path() {
    return path;
  }

  @Override
  public void create(IntentRecord record) {
    StoreRules.checkNew(record);
    checkOpen();
    MapDbRecords.Encoded encoded = records.encode(record);
    committer.execute(batch -> {
      records.create(batch, encoded);
      return null;
    });
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    StoreRules.checkReplacement(expected, replacement);
    checkOpen();
    MapDbRecords.Encoded encoded = records.encode(replacement);
    return committer.execute(batch -> records.compareAndSet(batch, expected, encoded));
  }

  @Override
  public Optional<IntentRecord> get(IntentId id) {
    Objects.requireNonNull(id, "id");
    checkOpen();
    return Optional.ofNullable(
        cache.get(id, key -> copies.read(file -> records.get(file, key))));
  }

  @Override
  public Optional<IntentRecord> findByBusinessId(String scope, String operation,
      String businessId) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(businessId, "businessId");
    checkOpen();
    return Optional.ofNullable(
        copies.read(file -> records.findByBusinessId(file, scope, operation, businessId)));
  }

  @Override
  public List<IntentRecord> listUnfinished() {
    checkOpen();
    applyPending();
    return copies.readApplied(records::listUnfinished);
  }

  @Override
  public List<UnfinishedEntry> listUnfinishedIds() {
    checkOpen();
    applyPending();
    return copies.readApplied(records::listUnfinishedIds);
  }

  /** {@inheritDoc} Reads and decodes every record of the file; finished ones are visited. */
  @Override
  public void forEachFinished(Consumer<IntentRecord> visitor) {
    Objects.requireNonNull(visitor, "visitor");
    checkOpen();
    applyPending();
    copies.readApplied(file -> {
      records.forEachFinished(file, visitor);
      return null;
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>Walks an index of the unfinished records by due time that this store keeps in memory
   * ({@code MapDbDueIndex}: about 120 bytes per unfinished record, nothing in the files), reading
   * only the records it returns, so a claim costs the same with 100 or 100,000 unfinished
   * records. The first claim after the store was opened builds the index inside one group commit
   * from the unfinished index's stubs (no record is read); its entries can be early, and a claim
   * that reads an early entry's record moves the entry to the record's due time, once. A record
   * that fails verification is skipped and logged (the reads that meet it report it).
   */
  @Override
  public List<IntentRecord> claimDue(Instant now, int limit) {
    DueClaim claim = new DueClaim(now, limit);
    checkOpen();
    MapDbDueIndex index = dueIndex();
    for (MapDbDueIndex.Entry entry : index.walk()) {
      if (!claim.wants(entry.at())) {
        break;
      }
      IntentRecord record;
      try {
        record = copies.read(view -> records.getByLookup(view, entry.lookup()));
      } catch (StoreCorruptedException e) {
        // One damaged record must not hold back every other due record; reads of it report it.
        LOG.log(Level.WARNING, "claimDue skips a damaged record", e);
        continue;
      }
      if (!claim.offer(record, entry.at())) {
        index.correct(entry, record == null ? null : DueTime.of(record));
      }
    }
    return claim.records();
  }

  /**
   * The due-time index, built on first use inside a group commit: from what the commits before it
   * left, so that every later write, those of the same group included, reaches it as a move.
   */
  private MapDbDueIndex dueIndex() {
    MapDbDueIndex built = dueIndex;
    if (built != null) {
      return built;
    }
    committer.execute(batch -> {
      if (dueIndex == null) {
        copies.awaitApplier();
        MapDbDueIndex index = new MapDbDueIndex();
        records.forEachUnfinished(batch, index::addEarly);
        dueIndex = index;
      }
      return null;
    });
    return dueIndex;
  }

  /**
   * The lookup key of each entry of the due-time index, in index order, or null before the first
   * claim built it (for tests).
   */
  List<byte[]> dueIndexLookups() {
    MapDbDueIndex index = dueIndex;
    if (index == null) {
      return null;
    }
    List<byte[]> lookups = new ArrayList<>();
    index.walk().forEach(e -> lookups.add(e.lookup()));
    return lookups;
  }

  /** Waits until every commit acknowledged so far is in the working copy, which listings read. */
  private void applyPending() {
    committer.execute(batch -> {
      batch.requestApply();
      return null;
    });
  }

  @Override
  public int purgeExpired(Instant now) {
    Objects.requireNonNull(now, "now");
    checkOpen();
    return committer.execute(batch -> {
      copies.awaitApplier();
      return records.purge(batch, now);
    });
  }

  /**
   * Commits what is queued, checkpoints (so the journal is empty and both copies are equal, and
   * either can stand in for the other at the next open), and releases files and the lock.
   * Idempotent.
   */
  @Override
  public void close() {
    closing.close(committer::close, copies::close, lock::close);
  }

  private void checkOpen() {
    closing.checkOpen();
  }

  @Override
  public String toString() {
    return "MapDbIntentStore{" + path + "}";
  }

  /** Group commits through the journal, plus the read cache and compaction after each commit. */
  private final class Commits implements GroupCommitter.Transactions<MapDbBatch> {
    @Override
    public MapDbBatch begin() {
      return copies.begin();
    }

    @Override
    public void commit(MapDbBatch batch) {
      copies.commit(batch);
      MapDbDueIndex index = dueIndex;
      if (index != null && !batch.dueMoves().isEmpty()) {
        index.apply(batch.dueMoves());
      }
      if (batch.deletedRecords()) {
        cache.invalidateAll();
        try {
          copies.compactIfSparse();
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "compacting " + path + " failed; space is"
              + " reclaimed at the next purge", e);
        }
      } else {
        cache.committed(batch.written());
      }
    }

    @Override
    public void rollback(MapDbBatch batch) {
      cache.invalidateAll();
      copies.rollback(batch);
    }
  }
}
