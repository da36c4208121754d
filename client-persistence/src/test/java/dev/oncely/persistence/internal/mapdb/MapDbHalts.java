package dev.oncely.persistence.internal.mapdb;

import dev.oncely.persistence.internal.CommitHalts;
import java.io.IOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.mapdb.volume.Volume;

/**
 * Halts the JVM inside the MapDB engine's own I/O, for the kill tests' child JVMs ({@link
 * CommitHalts#halt}: status {@value CommitHalts#HALT_STATUS}, no shutdown hooks, like SIGKILL).
 * Each point is armed by a system property the child's main reads:
 * <ul>
 *   <li>{@value #WRITE_PROPERTY}{@code =<n>}: at the n-th write MapDB makes to a copy in this
 *       process (while a committed group is applied to the working copy, or a checkpoint rebuilds
 *       one);
 *   <li>{@value #JOURNAL_PROPERTY}{@code =<n>}: in the n-th journal append, after only the first
 *       half of the frame was written: the torn tail a kill during the append leaves;
 *   <li>{@value #CHECKPOINT_PROPERTY}{@code =<n>:<step>}: in the n-th checkpoint at the step named
 *       (one of {@link #checkpointSteps}).
 * </ul>
 */
public final class MapDbHalts implements CommitCrashPoints.Points {
  /** The system property that halts at the n-th write MapDB makes to a copy. */
  public static final String WRITE_PROPERTY = "oncely.test.mapdb.haltInsideCommit";
  /** The system property that tears the n-th journal append and halts. */
  public static final String JOURNAL_PROPERTY = "oncely.test.mapdb.haltInJournalAppend";
  /** The system property that halts in the n-th checkpoint, {@code <n>:<step>}. */
  public static final String CHECKPOINT_PROPERTY = "oncely.test.mapdb.haltInCheckpoint";

  private final long writeAt;
  private final long journalAt;
  private final long checkpointAt;
  private final CommitCrashPoints.Checkpoint checkpointStep;
  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong appends = new AtomicLong();
  private final AtomicLong checkpoints = new AtomicLong();

  private MapDbHalts(long writeAt, long journalAt, long checkpointAt,
      CommitCrashPoints.Checkpoint checkpointStep) {
    this.writeAt = writeAt;
    this.journalAt = journalAt;
    this.checkpointAt = checkpointAt;
    this.checkpointStep = checkpointStep;
  }

  /** The checkpoint steps {@value #CHECKPOINT_PROPERTY} can name. */
  public static List<String> checkpointSteps() {
    return Arrays.stream(CommitCrashPoints.Checkpoint.values()).map(Enum::name).toList();
  }

  /**
   * Arms the halts the system properties ask for, if any is set; a child JVM's main calls this
   * before it opens a store.
   */
  public static void installFromSystemProperties() {
    long writeAt = Long.getLong(WRITE_PROPERTY, 0L);
    long journalAt = Long.getLong(JOURNAL_PROPERTY, 0L);
    String checkpoint = System.getProperty(CHECKPOINT_PROPERTY, "").trim();
    int colon = checkpoint.indexOf(':');
    long checkpointAt = colon < 0 ? 0 : Long.parseLong(checkpoint.substring(0, colon));
    CommitCrashPoints.Checkpoint step = colon < 0 ? null
        : CommitCrashPoints.Checkpoint.valueOf(checkpoint.substring(colon + 1));
    if (writeAt > 0 || journalAt > 0 || checkpointAt > 0) {
      CommitCrashPoints.install(new MapDbHalts(writeAt, journalAt, checkpointAt, step));
    }
  }

  @Override
  public Volume volume(Volume volume) {
    return writeAt <= 0 ? volume : new HaltingVolume(volume);
  }

  /** When armed for this append, writes the first half of {@code frame} and halts. */
  @Override
  public void journalAppend(FileChannel channel, long position, ByteBuffer frame)
      throws IOException {
    if (journalAt > 0 && appends.incrementAndGet() == journalAt) {
      ByteBuffer half = frame.duplicate();
      ((Buffer) half).limit(half.position() + half.remaining() / 2);
      while (half.hasRemaining()) {
        channel.write(half, position + half.position());
      }
      CommitHalts.halt();
    }
  }

  @Override
  public void checkpointStarted() {
    if (checkpointAt > 0) {
      checkpoints.incrementAndGet();
    }
  }

  @Override
  public void checkpoint(CommitCrashPoints.Checkpoint step) {
    if (checkpointAt > 0 && step == checkpointStep && checkpoints.get() == checkpointAt) {
      CommitHalts.halt();
    }
  }

  /** Counts the writes of a real volume and halts at the armed one. */
  private final class HaltingVolume extends ForwardingVolume {
    HaltingVolume(Volume delegate) {
      super(delegate);
    }

    @Override
    protected void written(long offset, long length) {
      if (writes.incrementAndGet() == writeAt) {
        CommitHalts.halt();
      }
    }
  }
}
