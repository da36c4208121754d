package dev.oncely.persistence.internal;

import dev.oncely.client.spi.IntentRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The transaction handle of one group commit on the MapDB engine: the copy being written plus the
 * changes made to it, kept so the other copy can replay them before its own next commit, and the
 * records that become durable with it (for the read cache). Used only on the committer thread.
 */
public final class MapDbBatch {
  /** One change to one map; a null value removes the key. */
  public record Change(int map, byte[] key, byte[] value) {}

  private final MapDbFile target;
  private final List<Change> changes = new ArrayList<>();
  private final List<IntentRecord> written = new ArrayList<>();
  private boolean deleted;

  MapDbBatch(MapDbFile target) {
    this.target = target;
  }

  /** Returns the value under {@code key} as this batch sees it (its own writes included). */
  public byte[] get(int map, byte[] key) {
    return target.get(map, key);
  }

  /** Returns the entries of {@code map} in [{@code from}, {@code to}) as this batch sees them. */
  public Iterable<Map.Entry<byte[], byte[]>> range(int map, byte[] from, byte[] to) {
    return target.range(map, from, to);
  }

  /** Puts {@code value} under {@code key}. */
  public void put(int map, byte[] key, byte[] value) {
    target.put(map, key, value);
    changes.add(new Change(map, key, value));
  }

  /** Removes {@code key}. */
  public void remove(int map, byte[] key) {
    target.remove(map, key);
    changes.add(new Change(map, key, null));
    deleted |= map == MapDbFile.RECORDS;
  }

  /** Notes that {@code record} is stored by this batch. */
  public void wrote(IntentRecord record) {
    written.add(record);
  }

  MapDbFile target() {
    return target;
  }

  List<Change> changes() {
    return changes;
  }

  /** The records this batch stores, for the read cache. */
  public List<IntentRecord> written() {
    return written;
  }

  /** Whether this batch deleted records (the read cache must forget, the files may shrink). */
  public boolean deletedRecords() {
    return deleted;
  }

  /** Replays {@code changes} onto {@code file} (uncommitted). */
  static void replay(List<Change> changes, MapDbFile file) {
    for (Change c : changes) {
      if (c.value() == null) {
        file.remove(c.map(), c.key());
      } else {
        file.put(c.map(), c.key(), c.value());
      }
    }
  }
}
