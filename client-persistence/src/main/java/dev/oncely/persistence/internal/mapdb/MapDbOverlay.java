package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.IntentRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Commits that are durable in the journal but not yet applied to the MapDB working copy. Applying
 * each group commit to MapDB's B-trees at once was most of the committer thread's time (a B-tree
 * node read and rewritten per change, as measured), while most of those changes are short-lived: an
 * intent's record is written when it is created and again when it completes, and its entry in the
 * unfinished index is added and then removed. Held here until {@link #applyTo} runs, the last
 * value per key is all that reaches MapDB, and an index entry added and removed in between never
 * reaches it at all.
 *
 * <p>Each change remembers whether the working copy lacks its key ("fresh"): a removal of a fresh
 * key drops the change instead of becoming a removal to apply. Records are kept decoded next to
 * their bytes, so a compare-and-set or a read of a recent record decodes nothing.
 *
 * <p>While one overlay is being applied by the engine's applier thread, the next one collects new
 * commits in front of it ({@link #below}): reads go through both, newest first, and "fresh" is
 * judged against what the working copy will hold once the one below is applied.
 *
 * <p>Never the source of truth after a crash: the journal holds every commit it holds, and
 * opening replays the journal onto the working copy. Not thread-safe: the committer (or the
 * applier, while the committer waits for it) changes it while holding the engine's write lock and readers read it under the read lock; an
 * overlay being applied is no longer changed.
 */
final class MapDbOverlay {
  /** A value (null: removed), its decoded record if any, whether the working copy lacks the key. */
  record Change(byte[] value, IntentRecord record, boolean fresh) {}

  private final MapDbChanges changes = new MapDbChanges();
  private volatile MapDbOverlay below;

  /** An empty overlay directly on the working copy. */
  public MapDbOverlay() {
    this(null);
  }

  /** An empty overlay in front of {@code below}, which is being applied (null: none). */
  MapDbOverlay(MapDbOverlay below) {
    this.below = below;
  }

  /** The overlay being applied behind this one, or null once it is in the working copy. */
  MapDbOverlay below() {
    return below;
  }

  /** Notes that the overlay below reached the working copy. */
  void belowApplied() {
    below = null;
  }

  /**
   * The newest pending change of {@code key} (this overlay's, else the one's below), or null when
   * there is none; "fresh" as seen from this overlay: a change below is fresh only if it removes.
   */
  Change get(int map, byte[] key) {
    Change mine = changes.get(map, key);
    if (mine != null) {
      return mine;
    }
    MapDbOverlay under = below;
    Change c = under == null ? null : under.changes.get(map, key);
    return c == null ? null : new Change(c.value(), c.record(), c.value() == null);
  }

  /**
   * The changes of {@code map} in this overlay alone with keys in [{@code from}, {@code to})
   * ({@code to} null: to the end), in MapDB's key order.
   */
  List<Map.Entry<byte[], Change>> range(int map, byte[] from, byte[] to) {
    return changes.range(map, from, to);
  }

  /** Takes a committed change; a removal of a key the working copy lacks just forgets the key. */
  void merge(int map, byte[] key, Change change) {
    if (change.value() == null && change.fresh()) {
      changes.remove(map, key);
    } else {
      changes.put(map, key, change);
    }
  }

  /** How many changes wait to be applied. */
  public int size() {
    return changes.size();
  }

  /**
   * Applies every change of this overlay to {@code file}, in key order per map. Changes nothing
   * here, so readers may read this overlay meanwhile.
   */
  public void applyTo(MapDbFile file) {
    for (int map = 0; map < changes.maps(); map++) {
      for (Map.Entry<byte[], Change> e : changes.sorted(map)) {
        byte[] value = e.getValue().value();
        if (value == null) {
          file.remove(map, e.getKey());
        } else {
          file.put(map, e.getKey(), value);
        }
      }
    }
  }

  /** This overlay's changes as one journal payload, in the order {@link #applyTo} applies them. */
  byte[] payload() {
    return MapDbBatch.encode(changes);
  }

  /** Forgets every change (once they are applied). */
  void clear() {
    changes.clear();
  }

  /** Reads through this overlay to {@code file} for what it does not hold. */
  public MapDbView over(MapDbFile file) {
    return new MapDbView() {
      @Override
      public byte[] get(int map, byte[] key) {
        Change c = MapDbOverlay.this.get(map, key);
        return c != null ? c.value() : file.get(map, key);
      }

      @Override
      public IntentRecord known(byte[] lookup) {
        Change c = MapDbOverlay.this.get(MapDbFile.RECORDS, lookup);
        return c == null ? null : c.record();
      }

      @Override
      public Path path() {
        return file.path();
      }
    };
  }
}
