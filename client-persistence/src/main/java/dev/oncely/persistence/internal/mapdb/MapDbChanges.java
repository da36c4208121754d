package dev.oncely.persistence.internal.mapdb;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Changes to the engine's maps, one per map and key, as a {@link MapDbBatch} or a
 * {@link MapDbOverlay} holds them. Point look-ups and puts hash the key (the committer makes
 * several per write, and a sorted map paid a dozen byte-array comparisons for each); the key
 * order MapDB and the journal use ({@link #UNSIGNED}) is produced only where it is needed, when
 * a group is encoded, an overlay applied or a range read. Not thread-safe.
 */
final class MapDbChanges {
  /** Unsigned lexicographic byte order, MapDB's order of {@code byte[]} keys. */
  static final Comparator<byte[]> UNSIGNED = MapDbChanges::compareUnsigned;

  private static final Comparator<Map.Entry<byte[], MapDbOverlay.Change>> BY_KEY =
      (a, b) -> compareUnsigned(a.getKey(), b.getKey());

  /** A key compared by content; the hash is computed once. */
  private static final class Key {
    final byte[] bytes;
    final int hash;

    Key(byte[] bytes) {
      this.bytes = bytes;
      this.hash = Arrays.hashCode(bytes);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.hash == hash && Arrays.equals(k.bytes, bytes);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  private final List<HashMap<Key, MapDbOverlay.Change>> maps = new ArrayList<>();
  private int size;

  /** No change in any of the engine's maps. */
  MapDbChanges() {
    for (int map = 0; map <= MapDbFile.EXPIRY; map++) {
      maps.add(new HashMap<>());
    }
  }

  private static int compareUnsigned(byte[] a, byte[] b) {
    int n = Math.min(a.length, b.length);
    for (int i = 0; i < n; i++) {
      int c = (a[i] & 0xff) - (b[i] & 0xff);
      if (c != 0) {
        return c;
      }
    }
    return a.length - b.length;
  }

  /** How many maps changes are kept for ({@link MapDbFile#EXPIRY} + 1). */
  int maps() {
    return maps.size();
  }

  /** The change of {@code key} in {@code map}, or null. */
  MapDbOverlay.Change get(int map, byte[] key) {
    return maps.get(map).get(new Key(key));
  }

  /** Sets the change of {@code key} in {@code map}, replacing any earlier one. */
  void put(int map, byte[] key, MapDbOverlay.Change change) {
    if (maps.get(map).put(new Key(key), change) == null) {
      size++;
    }
  }

  /** Forgets the change of {@code key} in {@code map}, if any. */
  void remove(int map, byte[] key) {
    if (maps.get(map).remove(new Key(key)) != null) {
      size--;
    }
  }

  /** How many changes are held, over all maps. */
  int size() {
    return size;
  }

  /** Forgets every change. */
  void clear() {
    for (HashMap<Key, MapDbOverlay.Change> m : maps) {
      m.clear();
    }
    size = 0;
  }

  /** Receives changes in no particular order. */
  @FunctionalInterface
  interface Visitor {
    void change(int map, byte[] key, MapDbOverlay.Change change);
  }

  /** Calls {@code visitor} with every change, in no particular order. */
  void forEach(Visitor visitor) {
    for (int map = 0; map < maps.size(); map++) {
      for (Map.Entry<Key, MapDbOverlay.Change> e : maps.get(map).entrySet()) {
        visitor.change(map, e.getKey().bytes, e.getValue());
      }
    }
  }

  /** The changes of {@code map} in {@link #UNSIGNED} key order. */
  List<Map.Entry<byte[], MapDbOverlay.Change>> sorted(int map) {
    return range(map, null, null);
  }

  /**
   * The changes of {@code map} with keys in [{@code from}, {@code to}) in {@link #UNSIGNED} key
   * order ({@code from} null: from the start; {@code to} null: to the end).
   */
  List<Map.Entry<byte[], MapDbOverlay.Change>> range(int map, byte[] from, byte[] to) {
    HashMap<Key, MapDbOverlay.Change> m = maps.get(map);
    List<Map.Entry<byte[], MapDbOverlay.Change>> out = new ArrayList<>(m.size());
    for (Map.Entry<Key, MapDbOverlay.Change> e : m.entrySet()) {
      byte[] key = e.getKey().bytes;
      if ((from == null || compareUnsigned(key, from) >= 0)
          && (to == null || compareUnsigned(key, to) < 0)) {
        out.add(new AbstractMap.SimpleImmutableEntry<>(key, e.getValue()));
      }
    }
    out.sort(BY_KEY);
    return out;
  }
}
