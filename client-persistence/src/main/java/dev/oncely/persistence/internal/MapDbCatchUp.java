package dev.oncely.persistence.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Every change the working copy received since the last checkpoint, in the order MapDB received
 * it: the journal frames replayed when the store opened, then each overlay as it was applied.
 * At a checkpoint the old image, which was a byte-for-byte copy of the working copy when that
 * copy was opened, receives the same calls in the same order and so becomes a byte-for-byte copy
 * of the new image (MapDB's single-writer allocation is deterministic), without the whole file
 * being copied: the checkpoint's cost follows what changed, not the size of the store.
 *
 * <p>Holds at most what the journal holds since the last checkpoint (an overlay keeps only the
 * last value per key, so usually much less), as the bytes of journal payloads. Thread-safe: the
 * applier thread adds while the committer may read the size.
 */
final class MapDbCatchUp {
  private final List<byte[]> steps = new ArrayList<>();
  private long bytes;

  /** Notes that {@code payload} ({@link MapDbBatch} format) was applied to the working copy. */
  synchronized void applied(byte[] payload) {
    steps.add(payload);
    bytes += payload.length;
  }

  /** Payload bytes held (for the engine's own accounting). */
  synchronized long bytes() {
    return bytes;
  }

  /**
   * Applies every step, in order, to {@code file}, then marks it as holding commit
   * {@code sequence} as the working copy was; halts half-way when the test crash point
   * {@link CommitCrashPoints.Checkpoint#COPYING} is armed.
   */
  synchronized void replayOnto(MapDbFile file, long sequence) {
    int half = steps.size() / 2;
    for (int i = 0; i < steps.size(); i++) {
      if (i == half) {
        CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.COPYING);
      }
      MapDbBatch.apply(steps.get(i), file);
    }
    if (steps.isEmpty()) {
      CommitCrashPoints.checkpoint(CommitCrashPoints.Checkpoint.COPYING);
    }
    file.sequence(sequence);
  }

  /** Forgets every step (both copies are equal again). */
  synchronized void clear() {
    steps.clear();
    bytes = 0;
  }
}
