package dev.oncely.persistence.internal.mapdb;

import dev.oncely.persistence.internal.CommitCrashHook;
import java.io.IOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicLong;
import org.mapdb.volume.Volume;

/**
 * Test-only crash points <em>inside</em> the MapDB engine's own I/O, for the kill tests. Each is
 * armed by a system property; the JVM then halts (status {@value CommitCrashHook#HALT_STATUS}, no
 * shutdown hooks, like SIGKILL) at that point. Unarmed, each costs one check of a static final
 * field.
 * <ul>
 *   <li>{@value #PROPERTY}{@code =<n>}: at the n-th write MapDB makes to a copy in this process
 *       (while a committed group is applied to the working copy, or a checkpoint rebuilds one);
 *   <li>{@value #JOURNAL_PROPERTY}{@code =<n>}: in the n-th journal append, after only the first
 *       half of the frame was written: the torn tail a kill during the append leaves;
 *   <li>{@value #CHECKPOINT_PROPERTY}{@code =<n>:<step>}: in the n-th checkpoint at
 *       {@link Checkpoint step}.
 * </ul>
 */
public final class CommitCrashPoints {
  /** The system property that halts at the n-th write MapDB makes to a copy. */
  public static final String PROPERTY = "oncely.test.mapdb.haltInsideCommit";
  /** The system property that tears the n-th journal append and halts. */
  public static final String JOURNAL_PROPERTY = "oncely.test.mapdb.haltInJournalAppend";
  /** The system property that halts in the n-th checkpoint, {@code <n>:<step>}. */
  public static final String CHECKPOINT_PROPERTY = "oncely.test.mapdb.haltInCheckpoint";

  /** Where in a checkpoint {@value #CHECKPOINT_PROPERTY} halts. */
  public enum Checkpoint {
    /** The working copy is closed and forced; the control file still names the old image. */
    IMAGE_FORCED,
    /** The control file names the new image; the journal still holds the frames it covers. */
    BEFORE_JOURNAL_RESET,
    /**
     * Half-way through bringing the old image up to the new one (the next working copy): through
     * its catch-up, or through the full copy after a compaction.
     */
    COPYING
  }

  private static final long HALT_AT = Long.getLong(PROPERTY, 0L);
  private static final long JOURNAL_AT = Long.getLong(JOURNAL_PROPERTY, 0L);
  private static final long CHECKPOINT_AT;
  private static final Checkpoint CHECKPOINT_STEP;
  private static final AtomicLong WRITES = new AtomicLong();
  private static final AtomicLong APPENDS = new AtomicLong();
  private static final AtomicLong CHECKPOINTS = new AtomicLong();

  static {
    String value = System.getProperty(CHECKPOINT_PROPERTY, "").trim();
    int colon = value.indexOf(':');
    CHECKPOINT_AT = colon < 0 ? 0 : Long.parseLong(value.substring(0, colon));
    CHECKPOINT_STEP = colon < 0 ? null : Checkpoint.valueOf(value.substring(colon + 1));
  }

  private CommitCrashPoints() {}

  /** Returns {@code volume}, wrapped to count writes when {@value #PROPERTY} is set. */
  static Volume wrap(Volume volume) {
    return HALT_AT <= 0 ? volume : new HaltingVolume(volume);
  }

  /**
   * Called before a journal frame is written at {@code position}: when armed for this append,
   * writes the first half of {@code frame} and halts.
   */
  static void journalAppend(FileChannel channel, long position, ByteBuffer frame)
      throws IOException {
    if (JOURNAL_AT > 0 && APPENDS.incrementAndGet() == JOURNAL_AT) {
      ByteBuffer half = frame.duplicate();
      ((Buffer) half).limit(half.position() + half.remaining() / 2);
      while (half.hasRemaining()) {
        channel.write(half, position + half.position());
      }
      Runtime.getRuntime().halt(CommitCrashHook.HALT_STATUS);
    }
  }

  /** Called when a checkpoint starts; counts checkpoints. */
  static void checkpointStarted() {
    if (CHECKPOINT_AT > 0) {
      CHECKPOINTS.incrementAndGet();
    }
  }

  /** Called at {@code step} of the current checkpoint: halts when armed for it. */
  static void checkpoint(Checkpoint step) {
    if (CHECKPOINT_AT > 0 && step == CHECKPOINT_STEP && CHECKPOINTS.get() == CHECKPOINT_AT) {
      Runtime.getRuntime().halt(CommitCrashHook.HALT_STATUS);
    }
  }

  private static void write() {
    if (WRITES.incrementAndGet() == HALT_AT) {
      Runtime.getRuntime().halt(CommitCrashHook.HALT_STATUS);
    }
  }

  /** Counts the writes of a real volume. */
  private static final class HaltingVolume extends ForwardingVolume {
    HaltingVolume(Volume delegate) {
      super(delegate);
    }

    @Override
    protected void written(long offset, long length) {
      write();
    }
  }
}
