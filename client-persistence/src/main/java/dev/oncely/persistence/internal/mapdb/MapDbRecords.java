package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.UnfinishedEntry;
import dev.oncely.client.spi.BusinessKey;
import dev.oncely.client.spi.Duplicates;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.client.spi.StoredRows;
import dev.oncely.client.spi.sql.UnfinishedStub;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Intent records and their indexes on top of {@link MapDbFile} maps: writes go through a
 * {@link MapDbBatch} by the caller leading the group commit; point reads go through a {@link
 * MapDbView} (the working copy under the commits not yet applied to it, whose records come back as they were
 * written), listings to the working copy alone. Every value read from a file is
 * verified twice: its checksum (by the {@link RecordCodec} or {@link UnfinishedStub}) and that it
 * belongs under the key it was found at, so a value MapDB misplaced is reported instead of
 * returned. Thread-safe.
 */
public final class MapDbRecords {
  private static final int LOOKUP_BYTES = 32;
  private static final int TIME_BYTES = 12;
  private static final byte[] EMPTY = new byte[0];

  private final RecordCodec codec;
  private final UnfinishedStub stubs;

  /** Records sealed with {@code encryption}, or plain when it is null. */
  public MapDbRecords(StoreEncryption encryption) {
    this.codec = new RecordCodec(encryption);
    this.stubs = new UnfinishedStub(encryption);
  }

  /**
   * A record with everything a write needs computed ahead, on the caller's thread: the codec
   * bytes, the lookup and business keys, the index key and value. The leading caller then only
   * checks and puts, so 64 callers encode in parallel instead of queueing behind one thread.
   */
  public static final class Encoded {
    final IntentRecord record;
    final byte[] lookup;
    final byte[] bytes;
    final byte[] business;
    final byte[] indexKey;
    final byte[] indexValue;

    private Encoded(IntentRecord record, byte[] lookup, byte[] bytes, byte[] business,
        byte[] indexKey, byte[] indexValue) {
      this.record = record;
      this.lookup = lookup;
      this.bytes = bytes;
      this.business = business;
      this.indexKey = indexKey;
      this.indexValue = indexValue;
    }
  }

  /** Encodes {@code record} for {@link #create} or {@link #compareAndSet}. */
  public Encoded encode(IntentRecord record) {
    byte[] lookup = RecordCodec.lookupKey(record.id());
    return new Encoded(record, lookup, codec.encode(record), BusinessKey.of(record),
        indexKey(record, lookup), indexValue(record));
  }

  /**
   * Stores a new record; validates before changing anything.
   *
   * @throws dev.oncely.client.DuplicateIntentException if the id or the business id is taken
   */
  public void create(MapDbBatch batch, Encoded e) {
    IntentRecord record = e.record;
    if (batch.get(MapDbFile.RECORDS, e.lookup) != null) {
      throw Duplicates.idTaken(batch.path().toString(), record.id());
    }
    if (e.business != null) {
      if (batch.get(MapDbFile.BUSINESS, e.business) != null) {
        throw Duplicates.businessIdTaken(batch.path().toString(), record.id());
      }
    }
    batch.putRecord(e.lookup, e.bytes, record, true);
    if (e.business != null) {
      batch.putNew(MapDbFile.BUSINESS, e.business, e.lookup);
    }
    batch.putNew(indexOf(record), e.indexKey, e.indexValue);
    batch.moveDue(MapDbDueIndex.Move.of(e.lookup, null, record));
  }

  /**
   * Replaces the stored record if it still has {@code expected}'s revision.
   *
   * @return false if it is missing or was changed since
   */
  public boolean compareAndSet(MapDbBatch batch, IntentRecord expected, Encoded e) {
    IntentRecord replacement = e.record;
    byte[] lookup = e.lookup;
    byte[] currentBytes = batch.get(MapDbFile.RECORDS, lookup);
    if (currentBytes == null) {
      return false;
    }
    IntentRecord current = recordOf(batch, currentBytes, lookup, "the record being replaced");
    if (current.revision() != expected.revision()) {
      return false;
    }
    batch.putRecord(lookup, e.bytes, replacement, false);
    byte[] oldIndexKey = indexKey(current, lookup);
    if (indexOf(current) != indexOf(replacement) || !Arrays.equals(oldIndexKey, e.indexKey)) {
      batch.remove(indexOf(current), oldIndexKey);
      batch.put(indexOf(replacement), e.indexKey, e.indexValue);
    } else if (indexOf(replacement) == MapDbFile.UNFINISHED
        && !Objects.equals(current.nextAttemptAt(), replacement.nextAttemptAt())) {
      batch.put(MapDbFile.UNFINISHED, e.indexKey, e.indexValue);
    }
    batch.moveDue(MapDbDueIndex.Move.of(lookup, current, replacement));
    return true;
  }

  /**
   * Deletes finished records that expired at or before {@code now}; returns how many. Checks every
   * record first, so a damaged one fails the purge without deleting anything.
   */
  public int purge(MapDbBatch batch, Instant now) {
    List<byte[]> due = new ArrayList<>();
    byte[] end = timePrefix(now.plusNanos(1));
    for (Map.Entry<byte[], byte[]> e : batch.range(MapDbFile.EXPIRY, new byte[0], end)) {
      due.add(e.getKey());
    }
    List<IntentRecord> records = new ArrayList<>(due.size());
    for (byte[] indexKey : due) {
      byte[] lookup = Arrays.copyOfRange(indexKey, TIME_BYTES, indexKey.length);
      byte[] bytes = batch.get(MapDbFile.RECORDS, lookup);
      if (bytes == null) {
        throw new StoreCorruptedException("expiry index entry " + hex(lookup)
            + " points to a missing record");
      }
      IntentRecord r = decode(bytes, lookup, "a record due for purge");
      if (!r.state().isTerminal() || r.expiresAt().isAfter(now)) {
        throw new StoreCorruptedException("expiry index entry " + hex(lookup) + " points to "
            + r.id() + " in state " + r.state() + " expiring " + r.expiresAt());
      }
      records.add(r);
    }
    for (int i = 0; i < due.size(); i++) {
      byte[] indexKey = due.get(i);
      byte[] lookup = Arrays.copyOfRange(indexKey, TIME_BYTES, indexKey.length);
      batch.remove(MapDbFile.EXPIRY, indexKey);
      batch.remove(MapDbFile.RECORDS, lookup);
      byte[] business = BusinessKey.of(records.get(i));
      if (business != null && Arrays.equals(lookup, batch.get(MapDbFile.BUSINESS, business))) {
        batch.remove(MapDbFile.BUSINESS, business);
      }
    }
    return due.size();
  }

  /** Returns the record with {@code id} in {@code file}, or null. */
  public IntentRecord get(MapDbView file, IntentId id) {
    byte[] lookup = RecordCodec.lookupKey(id);
    byte[] bytes = file.get(MapDbFile.RECORDS, lookup);
    if (bytes == null) {
      return null;
    }
    IntentRecord r = recordOf(file, bytes, lookup, file.path().toString());
    if (!r.id().equals(id)) {
      throw new StoreCorruptedException(file.path() + ": entry " + hex(lookup)
          + " holds record " + r.id() + " instead of " + id);
    }
    return r;
  }

  /**
   * Returns the record stored under lookup key {@code lookup} in {@code view}, or null.
   *
   * @throws StoreCorruptedException if its bytes fail verification or belong under another key
   */
  public IntentRecord getByLookup(MapDbView view, byte[] lookup) {
    byte[] bytes = view.get(MapDbFile.RECORDS, lookup);
    return bytes == null ? null : recordOf(view, bytes, lookup, view.path().toString());
  }

  /**
   * Calls {@code visitor} with the lookup key and {@linkplain UnfinishedStub#dueBound earliest due
   * time} of every unfinished record the commits acknowledged before {@code batch} left, from the
   * unfinished index's stubs alone (no record is read), to build a {@link MapDbDueIndex}. Only
   * while no overlay is being applied.
   *
   * @throws StoreCorruptedException if an index entry is malformed or its stub fails its checksum
   */
  public void forEachUnfinished(MapDbBatch batch, BiConsumer<byte[], Instant> visitor) {
    batch.forEachCommitted(MapDbFile.UNFINISHED, (indexKey, stub) -> {
      if (indexKey.length != TIME_BYTES + LOOKUP_BYTES) {
        throw new StoreCorruptedException(batch.path() + ": unfinished index key of "
            + indexKey.length + " bytes");
      }
      byte[] lookup = Arrays.copyOfRange(indexKey, TIME_BYTES, indexKey.length);
      visitor.accept(lookup, UnfinishedStub.dueBound(stub,
          () -> batch.path() + ": unfinished index entry " + hex(lookup)));
    });
  }

  /** Returns the record carrying {@code businessId}, or null. */
  public IntentRecord findByBusinessId(MapDbView file, String scope, String operation,
      String businessId) {
    byte[] lookup = file.get(MapDbFile.BUSINESS, BusinessKey.of(scope, operation, businessId));
    if (lookup == null) {
      return null;
    }
    byte[] bytes = file.get(MapDbFile.RECORDS, lookup);
    if (bytes == null) {
      throw new StoreCorruptedException(file.path() + ": business index points to entry "
          + hex(lookup) + ", which is missing");
    }
    String where = file.path().toString();
    return BusinessKey.checkFound(where, recordOf(file, bytes, lookup, where), scope, operation,
        businessId);
  }

  /**
   * Returns the id and due time of every unfinished record, oldest first, from the unfinished
   * index alone: each entry holds a small sealed stub of its record (id, times, no headers, body or
   * response), so listing reads no record and never touches finished ones.
   */
  public List<UnfinishedEntry> listUnfinishedIds(MapDbFile file) {
    List<UnfinishedEntry> out = new ArrayList<>();
    RecordCodec.LookupKeys keys = new RecordCodec.LookupKeys();
    for (Map.Entry<byte[], byte[]> e : file.all(MapDbFile.UNFINISHED)) {
      out.add(stubOf(file, e.getKey(), e.getValue(), keys));
    }
    return out;
  }

  /**
   * Returns every unfinished record, oldest first: the unfinished index, then each record by its
   * lookup key.
   *
   * @throws StoreCorruptedException if an index entry has no matching unfinished record
   */
  public List<IntentRecord> listUnfinished(MapDbFile file) {
    List<IntentRecord> out = new ArrayList<>();
    RecordCodec.LookupKeys keys = new RecordCodec.LookupKeys();
    for (Map.Entry<byte[], byte[]> e : file.all(MapDbFile.UNFINISHED)) {
      UnfinishedEntry stub = stubOf(file, e.getKey(), e.getValue(), keys);
      byte[] lookup = Arrays.copyOfRange(e.getKey(), TIME_BYTES, e.getKey().length);
      byte[] bytes = file.get(MapDbFile.RECORDS, lookup);
      if (bytes == null) {
        throw new StoreCorruptedException(file.path() + ": unfinished index entry of "
            + stub.id() + " points to a missing record");
      }
      IntentRecord r = decode(bytes, lookup, file.path().toString());
      if (r.state().isTerminal() || !Arrays.equals(e.getKey(), indexKey(r, lookup))) {
        throw new StoreCorruptedException(file.path() + ": unfinished index entry of " + r.id()
            + " does not match the record (state " + r.state() + ")");
      }
      out.add(r);
    }
    return out;
  }

  /** Calls {@code visitor} with every finished record of {@code file}, in no particular order. */
  public void forEachFinished(MapDbFile file, Consumer<IntentRecord> visitor) {
    for (Map.Entry<byte[], byte[]> e : file.all(MapDbFile.RECORDS)) {
      IntentRecord r = decode(e.getValue(), e.getKey(), file.path().toString());
      if (r.state().isTerminal()) {
        visitor.accept(r);
      }
    }
  }

  private UnfinishedEntry stubOf(MapDbFile file, byte[] indexKey, byte[] value,
      RecordCodec.LookupKeys keys) {
    UnfinishedEntry stub = stubs.decode(value, () -> file.path() + " unfinished index");
    if (!Arrays.equals(indexKey, indexKey(stub.createdAt(), keys.of(stub.id())))) {
      byte[] lookup = Arrays.copyOfRange(indexKey, TIME_BYTES, indexKey.length);
      throw new StoreCorruptedException(file.path() + ": unfinished index entry " + hex(lookup)
          + " holds " + stub.id() + ", which belongs under another key");
    }
    return stub;
  }

  /** The record {@code view} holds decoded under {@code lookup}, else {@code bytes} decoded. */
  private IntentRecord recordOf(MapDbView view, byte[] bytes, byte[] lookup, String where) {
    IntentRecord known = view.known(lookup);
    return known != null ? known : decode(bytes, lookup, where);
  }

  private IntentRecord decode(byte[] bytes, byte[] lookup, String where) {
    return StoredRows.decode(codec, where, lookup, bytes);
  }

  /**
   * The value of a record's index entry: while unfinished, its {@link UnfinishedStub} (id and
   * times), so listing needs no record read; nothing once finished.
   */
  private byte[] indexValue(IntentRecord r) {
    if (r.state().isTerminal()) {
      return EMPTY;
    }
    return stubs.encode(r);
  }

  private static int indexOf(IntentRecord r) {
    return r.state().isTerminal() ? MapDbFile.EXPIRY : MapDbFile.UNFINISHED;
  }

  private static byte[] indexKey(IntentRecord r, byte[] lookup) {
    return indexKey(r.state().isTerminal() ? r.expiresAt() : r.createdAt(), lookup);
  }

  /** The time prefix of {@code t}, then {@code lookup}, in one array. */
  private static byte[] indexKey(Instant t, byte[] lookup) {
    byte[] key = new byte[TIME_BYTES + LOOKUP_BYTES];
    putTime(key, t);
    System.arraycopy(lookup, 0, key, TIME_BYTES, lookup.length);
    return key;
  }

  /** Big-endian seconds with the sign bit flipped, then nanos: unsigned byte order is time order. */
  private static byte[] timePrefix(Instant t) {
    byte[] prefix = new byte[TIME_BYTES];
    putTime(prefix, t);
    return prefix;
  }

  private static void putTime(byte[] into, Instant t) {
    long seconds = t.getEpochSecond() ^ Long.MIN_VALUE;
    for (int i = 0; i < 8; i++) {
      into[i] = (byte) (seconds >>> (56 - 8 * i));
    }
    int nanos = t.getNano();
    for (int i = 0; i < 4; i++) {
      into[8 + i] = (byte) (nanos >>> (24 - 8 * i));
    }
  }

  private static String hex(byte[] lookup) {
    StringBuilder out = new StringBuilder("#");
    for (int i = 0; i < Math.min(6, lookup.length); i++) {
      out.append(Character.forDigit((lookup[i] >> 4) & 0xf, 16))
          .append(Character.forDigit(lookup[i] & 0xf, 16));
    }
    return out.toString();
  }
}
