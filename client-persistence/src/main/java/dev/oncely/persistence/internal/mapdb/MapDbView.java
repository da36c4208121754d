package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.IntentRecord;
import java.nio.file.Path;

/**
 * Point reads of the MapDB engine's maps as one layer or a stack of layers sees them: the working
 * copy alone ({@link MapDbFile}), the working copy under the commits not yet applied to it
 * ({@link MapDbOverlay#over}), or a group commit's own writes on top of both ({@link MapDbBatch}).
 */
public interface MapDbView {
  /** The value under {@code key} in map {@code map}, or null when absent (or removed). */
  byte[] get(int map, byte[] key);

  /**
   * The record under {@code lookup} when the layer that answers {@link #get} for it still holds
   * it decoded (it wrote it and never let it reach the disk), else null: decode the bytes.
   */
  IntentRecord known(byte[] lookup);

  /** The working copy's path, for error messages. */
  Path path();
}
