package dev.oncely.client.spi.sql;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.UnfinishedEntry;
import dev.oncely.client.spi.BusinessKey;
import dev.oncely.client.spi.DueClaim;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.client.spi.StoredRows;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How one store writes a record as a row of table {@code intent} ({@link #row}) and reads rows
 * back, verified: the record bytes pass their checksum and belong under the key they were found
 * at, and a record found through the unfinished columns is unfinished (and one outside them
 * terminal), so a damaged row or index is reported as {@link StoreCorruptedException} naming the
 * store and the row, never returned as another record. Messages name rows by their lookup key's
 * first bytes, never by the idempotency key. Thread-safe.
 */
public final class IntentRows {
  private final String store;
  private final RecordCodec codec;
  private final UnfinishedStub stubs;
  private final boolean writesStubs;

  private IntentRows(String store, @Nullable StoreEncryption encryption, boolean writesStubs) {
    this.store = Objects.requireNonNull(store, "store");
    this.codec = new RecordCodec(encryption);
    this.stubs = new UnfinishedStub(encryption);
    this.writesStubs = writesStubs;
  }

  /**
   * Rows of {@code store} (its name in messages) that carry each unfinished record's {@link
   * UnfinishedStub} in column {@code stub} (its id and times: scope and operation readable, the
   * key sealed when the store encrypts), so listing unfinished ids reads no record. Records and
   * stubs are sealed with {@code encryption}, or plain when it is null.
   *
   * @throws NullPointerException if {@code store} is null
   */
  public static IntentRows withStubs(String store, @Nullable StoreEncryption encryption) {
    return new IntentRows(store, encryption, true);
  }

  /**
   * Rows of {@code store} (its name in messages) whose column {@code stub} stays null, so no
   * column but {@code record} holds any part of an id, for an engine that promises exactly that;
   * listing unfinished ids then reads the records. Records are sealed with {@code encryption}, or
   * plain when it is null. Stubs other engines wrote are still read.
   *
   * @throws NullPointerException if {@code store} is null
   */
  public static IntentRows withoutStubs(String store, @Nullable StoreEncryption encryption) {
    return new IntentRows(store, encryption, false);
  }

  /**
   * The row of {@code record}: its keys, its codec bytes and every column derived from it (the
   * stub only when these rows carry stubs).
   *
   * @throws NullPointerException if {@code record} is null
   */
  public IntentRow row(IntentRecord record) {
    return rowOf(record, RecordCodec.lookupKey(record.id()), codec.encode(record));
  }

  /**
   * The row of the record in {@code bytes}, read from the row with lookup key {@code lookup} of a
   * file in an older layout that an engine brings to this schema: verified like any read, its
   * columns computed from the record, its bytes kept byte for byte.
   *
   * @throws StoreCorruptedException if the bytes are damaged or hold a record of another key
   * @throws dev.oncely.client.StoreEncryptionException if they were sealed with another key
   */
  public IntentRow copied(byte[] lookup, byte[] bytes) {
    return rowOf(record(lookup, bytes), lookup, bytes);
  }

  /** The row holding {@code record}, whose lookup key and codec bytes are given. */
  private IntentRow rowOf(IntentRecord record, byte[] lookup, byte[] bytes) {
    boolean terminal = record.state().isTerminal();
    return new IntentRow(lookup, BusinessKey.of(record), terminal ? null : record.createdAt(),
        terminal ? record.expiresAt() : null, bytes,
        terminal || !writesStubs ? null : stubs.encode(record),
        DueClaim.indexTime(record));
  }

  /**
   * The record in {@code bytes}, found in the row with lookup key {@code lookup}.
   *
   * @throws StoreCorruptedException if the bytes are damaged or hold a record of another key
   * @throws dev.oncely.client.StoreEncryptionException if they were sealed with another key
   */
  public IntentRecord record(byte[] lookup, byte[] bytes) {
    return StoredRows.decode(codec, store, lookup, bytes);
  }

  /**
   * The record in {@code bytes}, found in the row a read for {@code id} selected.
   *
   * @throws StoreCorruptedException if the bytes are damaged or hold another record
   * @throws dev.oncely.client.StoreEncryptionException if they were sealed with another key
   */
  public IntentRecord record(IntentId id, byte[] bytes) {
    IntentRecord r = codec.decode(bytes, store + ": record " + id);
    if (!r.id().equals(id)) {
      throw new StoreCorruptedException(store + ": the row of record " + id
          + " holds record " + r.id());
    }
    return r;
  }

  /**
   * The record of a row read through the unfinished columns ({@link IntentSql#UNFINISHED}).
   *
   * @throws StoreCorruptedException if it fails {@link #record(byte[], byte[])} or is terminal
   * @throws dev.oncely.client.StoreEncryptionException if it was sealed with another key
   */
  public IntentRecord unfinished(byte[] lookup, byte[] bytes) {
    IntentRecord r = record(lookup, bytes);
    if (r.state().isTerminal()) {
      throw new StoreCorruptedException(store + ": record " + r.id() + " is "
          + r.state() + " but listed in the unfinished index");
    }
    return r;
  }

  /**
   * The record of a row read outside the unfinished columns ({@link IntentSql#FINISHED}).
   *
   * @throws StoreCorruptedException if it fails {@link #record(byte[], byte[])} or is unfinished
   * @throws dev.oncely.client.StoreEncryptionException if it was sealed with another key
   */
  public IntentRecord finished(byte[] lookup, byte[] bytes) {
    IntentRecord r = record(lookup, bytes);
    if (!r.state().isTerminal()) {
      throw new StoreCorruptedException(store + ": record " + r.id() + " is "
          + r.state() + " but missing from the unfinished index");
    }
    return r;
  }

  /**
   * The entry of an unfinished row from its {@code stub} alone ({@link
   * IntentSql#UNFINISHED_STUBS}); {@code keys} hashes the ids of one listing.
   *
   * @throws StoreCorruptedException if the stub is damaged or names a record of another key
   * @throws dev.oncely.client.StoreEncryptionException if its key was sealed with another key
   */
  public UnfinishedEntry entry(byte[] lookup, byte[] stub, RecordCodec.LookupKeys keys) {
    UnfinishedEntry e = stubs.decode(stub, () -> store + ": " + StoredRows.name(lookup));
    StoredRows.checkKey(store, lookup, keys.of(e.id()), e.id());
    return e;
  }
}
