package dev.oncely.persistence.internal.mapdb;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Objects;
import org.mapdb.volume.Volume;

/**
 * The points <em>inside</em> the MapDB engine's own I/O where a kill test stops the process: every
 * write MapDB makes to its working view (while a committed group is applied) or to a rebuilt
 * image (a compaction), each journal append before its frame is written, and four
 * {@link Checkpoint steps} of a checkpoint.
 *
 * <p>A shipped store has nothing installed here and reads no setting for it: volumes are not
 * wrapped, and every other point is one read of a volatile field and a call that does nothing. A
 * kill test's child JVM installs its {@link Points} from its own main, before it opens a store,
 * through a class of this package in the test sources; that is the only way in.
 */
final class CommitCrashPoints {
  /** The steps of a checkpoint that have a point. */
  enum Checkpoint {
    /**
     * The redo file (or, in a compaction, the rebuilt image in the temp file) is forced; the
     * control file still names the old image.
     */
    REDO_FORCED,
    /**
     * The control file names the new image, redo (or rename) pending; the journal still holds
     * the frames it covers.
     */
    BEFORE_JOURNAL_RESET,
    /**
     * Half-way through writing the redo's pages into the image in place (in a compaction: before
     * the rename).
     */
    WRITING_IN_PLACE,
    /**
     * The image is written in place and forced (renamed, in a compaction); the control file
     * still names the redo (the rename) as pending.
     */
    IMAGE_FORCED
  }

  /** What runs at the points, on whichever engine thread reaches them. */
  interface Points {
    /** The volume MapDB writes a copy through: {@code volume} itself or a wrapper of it. */
    Volume volume(Volume volume);

    /** Called before {@code frame} is written at {@code position} of the journal's channel. */
    void journalAppend(FileChannel channel, long position, ByteBuffer frame) throws IOException;

    /** Called when a checkpoint starts. */
    void checkpointStarted();

    /** Called at {@code step} of the current checkpoint. */
    void checkpoint(Checkpoint step);
  }

  private static final Points NONE = new Points() {
    @Override
    public Volume volume(Volume volume) {
      return volume;
    }

    @Override
    public void journalAppend(FileChannel channel, long position, ByteBuffer frame) {}

    @Override
    public void checkpointStarted() {}

    @Override
    public void checkpoint(Checkpoint step) {}
  };

  private static volatile Points points = NONE;

  private CommitCrashPoints() {}

  /** Runs {@code installed} at the points of every MapDB store of this JVM opened from now on. */
  static void install(Points installed) {
    points = Objects.requireNonNull(installed, "installed");
  }

  /** Returns the volume MapDB writes a copy through. */
  static Volume wrap(Volume volume) {
    return points.volume(volume);
  }

  /** Called before a journal frame is written at {@code position}. */
  static void journalAppend(FileChannel channel, long position, ByteBuffer frame)
      throws IOException {
    points.journalAppend(channel, position, frame);
  }

  /** Called when a checkpoint starts. */
  static void checkpointStarted() {
    points.checkpointStarted();
  }

  /** Called at {@code step} of the current checkpoint. */
  static void checkpoint(Checkpoint step) {
    points.checkpoint(step);
  }
}
