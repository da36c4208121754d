package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.StoreException;
import dev.oncely.persistence.internal.StoreFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Map;

/**
 * The checkpoint of the MapDB engine: the working copy becomes the checkpoint image, the journal
 * is emptied, and the old image becomes the next working copy.
 *
 * <p><b>Steps.</b> Close the working copy and force it (it now holds commit n exactly); write the
 * control slot "image = this copy, commit n, length, CRC32" and force it (the checkpoint's commit
 * point; the CRC32 of the whole file is combined from per-block checksums, {@link BlockCrcs}, of
 * which only the blocks holding written pages are read again); empty the journal; then copy onto the old image the pages MapDB wrote in the working
 * copy since it was opened ({@link DirtyPages}, closing included) and give it the new image's
 * length. The two copies were byte-for-byte equal when the working copy was opened, so the old
 * image is again a byte-for-byte copy of the new one, and the checkpoint writes what changed since
 * the last one instead of the whole file. A {@linkplain #compact compaction} instead rebuilds the
 * image into a fresh file holding only the live entries and copies it over the old image in full:
 * it runs only when free space dominates.
 *
 * <p><b>Crash argument.</b> A crash before the control write finds the old image named, intact
 * (never written while named), and a journal still holding every commit since it. A crash between
 * the control write and the journal reset finds the new image and frames it already holds,
 * skipped by sequence number. A crash while the pages are copied (or, in a compaction, the whole
 * file) finds a working copy that fails the image's checksum: opening copies the image over it in
 * full (recovery only; a clean close leaves both copies equal). After a power cut the same holds:
 * the image was forced before the slot naming it, the slot before the journal reset, and the copy
 * being brought along is never trusted until a later checkpoint forces it.
 *
 * <p>Runs on the engine's applier thread while the committer waits, readers kept out by the
 * engine. Not thread-safe.
 */
final class MapDbCheckpoint {
  private final Path[] paths;
  private final FileIo io;
  private final ControlFile control;
  private final Journal journal;
  /** The block checksums of the working copy as of its opening: equal to the image's then. */
  private BlockCrcs sums;

  MapDbCheckpoint(Path[] paths, FileIo io, ControlFile control, Journal journal,
      BlockCrcs sums) {
    this.paths = paths;
    this.io = io;
    this.control = control;
    this.journal = journal;
    this.sums = sums;
  }

  /** The block checksums of the image, which the working copy equaled when it was opened. */
  BlockCrcs sums() {
    return sums;
  }

  /**
   * Makes {@code working} (copy {@code target}, holding commit {@code sequence}) the image and
   * returns the other copy, brought up to it page by page, opened as the next working copy.
   *
   * @throws StoreException if a step fails (the store must then be reopened to recover)
   */
  MapDbFile take(MapDbFile working, int target, long sequence) {
    CommitCrashPoints.checkpointStarted();
    working.sequence(sequence);
    working.close();
    MapDbFiles.force(io, paths[target]);
    BitSet written = working.writtenPages();
    try (FileChannel image = io.open(paths[target])) {
      sums.update(image, written, DirtyPages.PAGE);
    } catch (IOException e) {
      throw new StoreException("cannot read " + paths[target] + ": " + e, e);
    }
    name(target, sequence);
    MapDbFiles.copyPages(io, paths[target], paths[1 - target], written, DirtyPages.PAGE);
    return MapDbFile.openExisting(paths[1 - target], io);
  }

  /**
   * Like {@link #take}, with an image rebuilt from {@code working}'s live entries into a fresh
   * file, so space freed by purges goes back to the file system; the old image is then replaced by
   * a full copy of the new one.
   *
   * @throws StoreException if a step fails (the store must then be reopened to recover)
   */
  MapDbFile compact(MapDbFile working, int target, long sequence) {
    CommitCrashPoints.checkpointStarted();
    working.sequence(sequence);
    Path temp = MapDbFiles.tempOf(paths[target]);
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
    working.close();
    try {
      StoreFiles.moveDurably(temp, paths[target]);
    } catch (IOException e) {
      throw new StoreException("cannot move " + temp + " to " + paths[target] + ": " + e, e);
    }
    sums = MapDbFiles.checksum(io, paths[target]);
    name(target, sequence);
    MapDbFiles.copy(io, paths[target], paths[1 - target]);
    return MapDbFile.openExisting(paths[1 - target], io);
  }

  /** Names the forced copy {@code target} the image of {@code sequence}, then empties the journal. */
  private void name(int target, long sequence) {
    CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.IMAGE_FORCED);
    control.write(new ControlFile.State(target, sequence, sums.length(), sums.whole()));
    CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.BEFORE_JOURNAL_RESET);
    journal.reset();
  }
}
