package dev.oncely.persistence.internal;

import dev.oncely.client.IntentRecord;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The transaction handle of one group commit on the MapDB engine: the changes its writes make,
 * held apart from the working copy until the journal frame holding them is durable (so no reader
 * ever sees a change that a crash could take back), and the records that become durable with it
 * (for the read cache). The writes of a batch see their own changes. Used only on the committer
 * thread.
 *
 * <p>Payload of its journal frame: {@code count u32}, then per change {@code map u8 | key length
 * u16 | key | value length i32 (-1 removes) | value}.
 */
public final class MapDbBatch {
  private static final int REMOVED = -1;

  private final MapDbFile image;
  private final List<TreeMap<byte[], byte[]>> overlay = new ArrayList<>();
  private final List<IntentRecord> written = new ArrayList<>();
  private int changes;
  private boolean deleted;

  MapDbBatch(MapDbFile image) {
    this.image = image;
    for (int map = 0; map <= MapDbFile.EXPIRY; map++) {
      overlay.add(new TreeMap<>(MapDbBatch::compareUnsigned));
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

  /** Returns the value under {@code key} as this batch sees it (its own writes included). */
  public byte[] get(int map, byte[] key) {
    TreeMap<byte[], byte[]> mine = overlay.get(map);
    if (mine.containsKey(key)) {
      return mine.get(key);
    }
    return image.get(map, key);
  }

  /**
   * Returns the entries of {@code map} with keys in [{@code from}, {@code to}) as this batch sees
   * them, in unsigned key order.
   */
  public List<Map.Entry<byte[], byte[]>> range(int map, byte[] from, byte[] to) {
    TreeMap<byte[], byte[]> merged = new TreeMap<>(MapDbBatch::compareUnsigned);
    for (Map.Entry<byte[], byte[]> e : image.range(map, from, to)) {
      merged.put(e.getKey(), e.getValue());
    }
    Map<byte[], byte[]> mine = to == null ? overlay.get(map).tailMap(from, true)
        : overlay.get(map).subMap(from, true, to, false);
    for (Map.Entry<byte[], byte[]> e : mine.entrySet()) {
      if (e.getValue() == null) {
        merged.remove(e.getKey());
      } else {
        merged.put(e.getKey(), e.getValue());
      }
    }
    List<Map.Entry<byte[], byte[]>> out = new ArrayList<>(merged.size());
    merged.forEach((k, v) -> out.add(new AbstractMap.SimpleImmutableEntry<>(k, v)));
    return out;
  }

  /** Puts {@code value} under {@code key}. */
  public void put(int map, byte[] key, byte[] value) {
    overlay.get(map).put(key, value);
    changes++;
  }

  /** Removes {@code key}. */
  public void remove(int map, byte[] key) {
    overlay.get(map).put(key, null);
    changes++;
    deleted |= map == MapDbFile.RECORDS;
  }

  /** Notes that {@code record} is stored by this batch. */
  public void wrote(IntentRecord record) {
    written.add(record);
  }

  /** Whether this batch changes nothing. */
  boolean isEmpty() {
    return changes == 0;
  }

  /** The records this batch stores, for the read cache. */
  public List<IntentRecord> written() {
    return written;
  }

  /** Whether this batch deleted records (the read cache must forget, the files may shrink). */
  public boolean deletedRecords() {
    return deleted;
  }

  /** The journal payload of this batch's changes (the last change per key only). */
  byte[] payload() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    DataOutputStream out = new DataOutputStream(bytes);
    try {
      int count = 0;
      for (TreeMap<byte[], byte[]> m : overlay) {
        count += m.size();
      }
      out.writeInt(count);
      for (int map = 0; map < overlay.size(); map++) {
        for (Map.Entry<byte[], byte[]> e : overlay.get(map).entrySet()) {
          out.writeByte(map);
          out.writeShort(e.getKey().length);
          out.write(e.getKey());
          byte[] value = e.getValue();
          out.writeInt(value == null ? REMOVED : value.length);
          if (value != null) {
            out.write(value);
          }
        }
      }
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** Applies this batch's changes to the working copy it was begun on. */
  void apply() {
    for (int map = 0; map < overlay.size(); map++) {
      for (Map.Entry<byte[], byte[]> e : overlay.get(map).entrySet()) {
        if (e.getValue() == null) {
          image.remove(map, e.getKey());
        } else {
          image.put(map, e.getKey(), e.getValue());
        }
      }
    }
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
