package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.StoreException;
import dev.oncely.persistence.internal.StoreFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Map;

/**
 * The checkpoint of the MapDB engine: the pages MapDB wrote into the working view (a private
 * mapping of the image, {@link PrivateMappedVolume}) since it was opened go into the image file,
 * through a redo file, and the journal is emptied.
 *
 * <p><b>Steps</b> ({@link #take}). (1) Close MapDB (its header checksum lands in the view) and
 * read the pages it wrote ({@link DirtyPages}); the new image is the view: its length, and a
 * CRC32 combined from per-block checksums ({@link BlockCrcs}) of which only the written blocks are
 * taken again, from memory. (2) Write those pages to the redo file ({@link RedoFile}: commit,
 * length, pages, CRC32) and force it. (3) Write the control slot "image of commit n, length,
 * CRC32, redo pending" and force it: the checkpoint's commit point. (4) Empty the journal.
 * (5) Write the pages in place into the image, give it the new length, force it. (6) Write the
 * control slot "image of commit n, nothing pending" and force it. (7) Open MapDB again on the
 * same view, which now reads as the image (below), so the next commits find the pages they touch
 * already mapped; or, once the view holds more than its bound of private pages (what MapDB wrote
 * since it was mapped), drop it and map the image privately again, which gives that memory back.
 * Its cost follows the pages written since the last checkpoint, which the engine bounds
 * ({@link MapDbCopies}).
 *
 * <p>A {@linkplain #compact compaction} instead rebuilds the image from the view's live entries
 * into the temp file, forces it, writes the slot "image of commit n, length, CRC32, rename
 * pending", empties the journal, renames the temp file over the image (durably), and writes the
 * slot "nothing pending".
 *
 * <p><b>Crash argument</b> (a crash, or a power cut that loses or tears every write no force
 * covered). The image file is written only in steps 5 and the compaction's rename, and only
 * while a forced control slot says what the image must become and where its bytes are.
 * <ul>
 *   <li>Before step 3's force: the slot still names the old image, never written since it was
 *       named, and the journal, not yet reset, holds every commit since it. A redo file, whole or
 *       torn, is ignored: no slot names it (and a later slot names only a redo of its own
 *       sequence and length, whose CRC32 a stale or torn file fails).
 *   <li>After step 3, before step 6's force: the slot names the redo, forced before it. Opening
 *       verifies, reading only, that the redo is whole (CRC32) and of the named commit and
 *       length and that the image with the redo's pages over it has the named CRC32; then writes
 *       the pages in place again (idempotent: whole pages at their own offsets; torn or lost
 *       in-place writes are simply rewritten), gives the image the named length, forces it and
 *       only then names it "nothing pending". Journal frames the new image already holds (a
 *       crash before step 4 finished) are skipped by sequence number. A power cut cannot take the
 *       redo from under the slot: it was forced before the slot was written.
 *   <li>After step 6: the image is the one named, forced in step 5 before the slot.
 *   <li>A torn slot write: each slot has its own CRC32 and 4 KiB block; the other slot (the step
 *       before) wins, and that state is covered above.
 *   <li>Compaction: before its slot's force, the old image and the journal are intact; after it,
 *       opening finds the named image either in the temp file (renamed then) or already renamed.
 * </ul>
 * The working view is never on disk, so nothing of it needs distrusting after a crash. A view kept
 * across a checkpoint reads as the new image: each page MapDB wrote into it since it was mapped
 * was written in place by this checkpoint or an earlier one (each writes the pages written since
 * the one before), and every other page is the file's own, which no checkpoint wrote. When MapDB
 * grows the store the view extends the image file with zeros past its named length
 * ({@link PrivateMappedVolume}): those bytes are no part of the image (its CRC32 covers the named
 * length only) and opening cuts them off.
 *
 * <p>Runs on the engine's applier thread while the committer waits, readers kept out by the
 * engine. Not thread-safe.
 */
final class MapDbCheckpoint {
  private final Path image;
  private final Path redo;
  private final FileIo io;
  private final ControlFile control;
  private final Journal journal;
  /** Private pages past which the working view is dropped and the image mapped again. */
  private final int heldLimit;
  /** The block checksums of the image, which the working view equaled when it was mapped. */
  private BlockCrcs sums;
  private int viewsMappedAfresh;

  MapDbCheckpoint(Path image, Path redo, FileIo io, ControlFile control, Journal journal,
      BlockCrcs sums, int heldLimit) {
    this.image = image;
    this.redo = redo;
    this.io = io;
    this.control = control;
    this.journal = journal;
    this.sums = sums;
    this.heldLimit = heldLimit;
  }

  /** The block checksums of the image. */
  BlockCrcs sums() {
    return sums;
  }

  /**
   * Writes what {@code working} (the view, holding commit {@code sequence}) changed into the image
   * and returns the new view, or null when {@code reopen} is false (the store is closing).
   *
   * @throws StoreException if a step fails (the store must then be reopened to recover)
   */
  MapDbFile take(MapDbFile working, long sequence, boolean reopen) {
    CommitCrashPoints.checkpointStarted();
    boolean keepView;
    try {
      working.sequence(sequence);
      working.close();
      BitSet written = working.writtenPages();
      keepView = working.holdPrivately(written) <= heldLimit;
      long length = working.viewLength();
      BlockCrcs.Pages pages = working.pages();
      try {
        sums.update(length, written, pages);
      } catch (IOException e) {
        throw new StoreException("cannot read the working view of " + image + ": " + e, e);
      }
      RedoFile.write(io, redo, sequence, length, written, pages);
      CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.REDO_FORCED);
      ControlFile.State named = new ControlFile.State(sequence, length, sums.whole(),
          ControlFile.Pending.REDO);
      control.write(named);
      CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.BEFORE_JOURNAL_RESET);
      journal.reset();
      RedoFile.applyTo(io, image, length, written, pages);
      CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.IMAGE_FORCED);
      control.write(named.with(ControlFile.Pending.NONE));
      emptyRedo();
    } catch (RuntimeException | Error e) {
      working.release();
      throw e;
    }
    if (reopen && keepView) {
      try {
        return MapDbFile.reopenView(working, io);
      } catch (RuntimeException e) {
        // The image is whole and named: mapping it afresh is the open any restart would do.
        return openAfresh(e);
      }
    }
    working.release();
    if (!reopen) {
      return null;
    }
    viewsMappedAfresh++;
    return MapDbFile.openView(image, io);
  }

  /** How many checkpoints mapped the image afresh instead of keeping the working view. */
  int viewsMappedAfresh() {
    return viewsMappedAfresh;
  }

  private MapDbFile openAfresh(RuntimeException reopenFailure) {
    try {
      viewsMappedAfresh++;
      return MapDbFile.openView(image, io);
    } catch (RuntimeException e) {
      e.addSuppressed(reopenFailure);
      throw e;
    }
  }

  /**
   * Like {@link #take}, with an image rebuilt from {@code working}'s live entries into a fresh
   * file, so space freed by purges goes back to the file system.
   *
   * @throws StoreException if a step fails (the store must then be reopened to recover)
   */
  MapDbFile compact(MapDbFile working, long sequence) {
    CommitCrashPoints.checkpointStarted();
    Path temp = MapDbFiles.tempOf(image);
    try {
      working.sequence(sequence);
      MapDbFile fresh = MapDbFile.create(temp, sequence, io);
      try {
        for (int map = MapDbFile.RECORDS; map <= MapDbFile.EXPIRY; map++) {
          for (Map.Entry<byte[], byte[]> e : working.all(map)) {
            fresh.put(map, e.getKey(), e.getValue());
          }
        }
      } finally {
        fresh.close();
      }
      MapDbFiles.force(io, temp);
    } finally {
      working.release();
    }
    sums = MapDbFiles.checksum(io, temp);
    CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.REDO_FORCED);
    ControlFile.State named = new ControlFile.State(sequence, sums.length(), sums.whole(),
        ControlFile.Pending.RENAME);
    control.write(named);
    CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.BEFORE_JOURNAL_RESET);
    journal.reset();
    CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.WRITING_IN_PLACE);
    rename(temp, image);
    CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.IMAGE_FORCED);
    control.write(named.with(ControlFile.Pending.NONE));
    return MapDbFile.openView(image, io);
  }

  /** Renames the forced {@code temp} over {@code image}, durably. */
  static void rename(Path temp, Path image) {
    try {
      StoreFiles.moveDurably(temp, image);
    } catch (IOException e) {
      throw new StoreException("cannot move " + temp + " to " + image + ": " + e, e);
    }
  }

  /** Frees the redo's disk space; no slot names it any more, so it need not be forced. */
  private void emptyRedo() {
    try (var channel = io.open(redo)) {
      channel.truncate(0);
    } catch (IOException e) {
      // Harmless: no slot names it, and the next checkpoint truncates it first.
    }
  }
}
