package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.IntentRecord;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * The transaction handle of one group commit on the MapDB engine: the changes its writes make,
 * held apart from everything else until the journal frame holding them is durable (so no reader
 * ever sees a change that a crash could take back), the records that become durable with it
 * (for the read cache) and what its writes do to the due-time index ({@link MapDbDueIndex}). The
 * writes of a batch see their own changes on top of the commits not yet applied to the working
 * copy ({@link MapDbOverlay}) on top of the working copy. Used only on the committer (the leader
 * of the group commit).
 *
 * <p>Payload of its journal frame: {@code count u32}, then per change {@code map u8 | key length
 * u16 | key | value length i32 (-1 removes) | value}.
 */
public final class MapDbBatch implements MapDbView {
  private static final int REMOVED = -1;

  private final MapDbFile image;
  private final MapDbOverlay committed;
  private final MapDbChanges changes = new MapDbChanges();
  private final List<IntentRecord> written = new ArrayList<>();
  private final List<MapDbDueIndex.Move> dueMoves = new ArrayList<>();
  private int count;
  private boolean deleted;
  private boolean applyRequested;

  MapDbBatch(MapDbFile image, MapDbOverlay committed) {
    this.image = image;
    this.committed = committed;
  }

  /** A batch on {@code image} with no commit pending in front of it ({@link #apply} writes there). */
  MapDbBatch(MapDbFile image) {
    this(image, new MapDbOverlay());
  }

  /** Returns the value under {@code key} as this batch sees it (its own writes included). */
  @Override
  public byte[] get(int map, byte[] key) {
    MapDbOverlay.Change c = changeOf(map, key);
    return c != null ? c.value() : image.get(map, key);
  }

  @Override
  public IntentRecord known(byte[] lookup) {
    MapDbOverlay.Change c = changeOf(MapDbFile.RECORDS, lookup);
    return c == null ? null : c.record();
  }

  @Override
  public Path path() {
    return image.path();
  }

  private MapDbOverlay.Change changeOf(int map, byte[] key) {
    MapDbOverlay.Change mine = changes.get(map, key);
    return mine != null ? mine : committed.get(map, key);
  }

  /**
   * Returns the entries of {@code map} with keys in [{@code from}, {@code to}) as this batch sees
   * them, in unsigned key order. Only while no overlay is being applied to the working copy
   * (see {@link MapDbCopies#awaitApplier}): MapDB's iterators do not promise a consistent view of
   * a tree that changes under them.
   */
  List<Map.Entry<byte[], byte[]>> range(int map, byte[] from, byte[] to) {
    TreeMap<byte[], byte[]> merged = new TreeMap<>(MapDbChanges.UNSIGNED);
    for (Map.Entry<byte[], byte[]> e : image.range(map, from, to)) {
      merged.put(e.getKey(), e.getValue());
    }
    MapDbOverlay applying = committed.below();
    if (applying != null) {
      overlay(merged, applying.range(map, from, to));
    }
    overlay(merged, committed.range(map, from, to));
    overlay(merged, changes.range(map, from, to));
    List<Map.Entry<byte[], byte[]>> out = new ArrayList<>(merged.size());
    merged.forEach((k, v) -> out.add(new AbstractMap.SimpleImmutableEntry<>(k, v)));
    return out;
  }

  private static void overlay(TreeMap<byte[], byte[]> merged,
      List<Map.Entry<byte[], MapDbOverlay.Change>> layer) {
    for (Map.Entry<byte[], MapDbOverlay.Change> e : layer) {
      if (e.getValue().value() == null) {
        merged.remove(e.getKey());
      } else {
        merged.put(e.getKey(), e.getValue().value());
      }
    }
  }

  /**
   * Calls {@code visitor} with every entry of {@code map} as the commits acknowledged before this
   * batch left it (the working copy under the commits not yet applied to it, without this batch's
   * own changes), in no particular order, streaming the working copy. Only while no overlay is
   * being applied to the working copy (see {@link MapDbCopies#awaitApplier}).
   */
  void forEachCommitted(int map, BiConsumer<byte[], byte[]> visitor) {
    TreeMap<byte[], byte[]> pending = new TreeMap<>(MapDbChanges.UNSIGNED);
    MapDbOverlay applying = committed.below();
    for (MapDbOverlay layer : new MapDbOverlay[] {applying, committed}) {
      if (layer != null) {
        for (Map.Entry<byte[], MapDbOverlay.Change> e : layer.range(map, null, null)) {
          pending.put(e.getKey(), e.getValue().value());
        }
      }
    }
    for (Map.Entry<byte[], byte[]> e : image.all(map)) {
      if (!pending.containsKey(e.getKey())) {
        visitor.accept(e.getKey(), e.getValue());
      }
    }
    pending.forEach((key, value) -> {
      if (value != null) {
        visitor.accept(key, value);
      }
    });
  }

  /** Puts {@code value} under {@code key}. */
  public void put(int map, byte[] key, byte[] value) {
    change(map, key, value, null, false);
  }

  /** Puts {@code value} under {@code key}, which the caller checked nobody holds yet. */
  void putNew(int map, byte[] key, byte[] value) {
    change(map, key, value, null, true);
  }

  /**
   * Puts {@code record}, encoded as {@code value}, under {@code lookup} in the records map;
   * {@code isNew}: the caller checked no record is there yet.
   */
  void putRecord(byte[] lookup, byte[] value, IntentRecord record, boolean isNew) {
    change(MapDbFile.RECORDS, lookup, value, record, isNew);
    written.add(record);
  }

  /** Records what a write of this batch does to the due-time index, applied once it is durable. */
  void moveDue(MapDbDueIndex.Move move) {
    dueMoves.add(move);
  }

  /** What this batch's writes do to the due-time index, in the order they ran. */
  public List<MapDbDueIndex.Move> dueMoves() {
    return dueMoves;
  }

  /** Removes {@code key}. */
  public void remove(int map, byte[] key) {
    change(map, key, null, null, false);
    deleted |= map == MapDbFile.RECORDS;
  }

  /**
   * A change of a key the working copy lacks stays "fresh" through later changes, so its removal
   * cancels it instead of reaching MapDB.
   */
  private void change(int map, byte[] key, byte[] value, IntentRecord record, boolean isNew) {
    MapDbOverlay.Change before = changeOf(map, key);
    boolean fresh = before != null ? before.fresh() : isNew;
    changes.put(map, key, new MapDbOverlay.Change(value, record, fresh));
    count++;
  }

  /** Asks for every pending commit to reach the working copy once this batch is committed. */
  public void requestApply() {
    applyRequested = true;
  }

  /** Whether a write of this batch asked for {@link #requestApply}. */
  boolean applyRequested() {
    return applyRequested;
  }

  /** Whether this batch changes nothing. */
  boolean isEmpty() {
    return count == 0;
  }

  /** The records this batch stores, for the read cache. */
  public List<IntentRecord> written() {
    return written;
  }

  /** Whether this batch deleted records (the read cache must forget, the files may shrink). */
  public boolean deletedRecords() {
    return deleted;
  }

  /**
   * The journal payload of this batch's changes (the last change per key only), written by the
   * journal straight into its frame: the records' bytes are copied once, into the frame.
   */
  Journal.Payload payload() {
    return new Payload(changes);
  }

  /**
   * The payload holding {@code changes}, map by map in each map's key order: applying it
   * ({@link #apply(byte[], MapDbFile)}) makes MapDB the same calls in the same order as
   * {@link MapDbOverlay#applyTo}.
   */
  static byte[] encode(MapDbChanges changes) {
    Payload payload = new Payload(changes);
    ByteBuffer out = ByteBuffer.allocate(payload.length());
    payload.writeTo(out);
    return out.array();
  }

  /** {@code changes} as a journal payload, sorted and measured once, written on demand. */
  private static final class Payload implements Journal.Payload {
    private final List<List<Map.Entry<byte[], MapDbOverlay.Change>>> maps;
    private final int count;
    private final int length;

    Payload(MapDbChanges changes) {
      maps = new ArrayList<>(changes.maps());
      count = changes.size();
      int size = 4;
      for (int map = 0; map < changes.maps(); map++) {
        List<Map.Entry<byte[], MapDbOverlay.Change>> sorted = changes.sorted(map);
        maps.add(sorted);
        for (Map.Entry<byte[], MapDbOverlay.Change> e : sorted) {
          byte[] value = e.getValue().value();
          size += 1 + 2 + e.getKey().length + 4 + (value == null ? 0 : value.length);
        }
      }
      length = size;
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public void writeTo(ByteBuffer out) {
      out.putInt(count);
      for (int map = 0; map < maps.size(); map++) {
        for (Map.Entry<byte[], MapDbOverlay.Change> e : maps.get(map)) {
          out.put((byte) map).putShort((short) e.getKey().length).put(e.getKey());
          byte[] value = e.getValue().value();
          out.putInt(value == null ? REMOVED : value.length);
          if (value != null) {
            out.put(value);
          }
        }
      }
    }
  }

  /** Hands this batch's changes, now durable, to the pending commits it was begun on. */
  void publish() {
    changes.forEach(committed::merge);
  }

  /** Publishes this batch and applies every pending commit to the working copy at once. */
  public void apply() {
    publish();
    committed.applyTo(image);
    committed.clear();
  }

  /**
   * Applies a journal payload to {@code file}.
   *
   * @throws IllegalArgumentException if the payload is malformed (its frame checksum passed, so
   *     this means a bug or a frame written by another layout)
   */
  static void apply(byte[] payload, MapDbFile file) {
    read(payload, file);
  }

  /**
   * Checks that {@code payload} is a well-formed group of changes without applying it, so opening
   * can refuse a malformed journal before it writes anything.
   *
   * @throws IllegalArgumentException if it is malformed
   */
  static void check(byte[] payload) {
    read(payload, null);
  }

  private static void read(byte[] payload, MapDbFile file) {
    ByteBuffer in = ByteBuffer.wrap(payload);
    try {
      int count = in.getInt();
      for (int i = 0; i < count; i++) {
        int map = in.get();
        if (map < 0 || map > MapDbFile.EXPIRY) {
          throw new IllegalArgumentException("map " + map);
        }
        byte[] key = new byte[in.getShort() & 0xffff];
        in.get(key);
        int length = in.getInt();
        if (length == REMOVED) {
          if (file != null) {
            file.remove(map, key);
          }
        } else {
          if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("value length " + length + " with "
                + in.remaining() + " bytes left");
          }
          byte[] value = new byte[length];
          in.get(value);
          if (file != null) {
            file.put(map, key, value);
          }
        }
      }
      if (in.hasRemaining()) {
        throw new IllegalArgumentException(in.remaining() + " bytes after the last change");
      }
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("malformed journal payload: " + e, e);
    }
  }
}
