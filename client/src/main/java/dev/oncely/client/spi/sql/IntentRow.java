package dev.oncely.client.spi.sql;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One record as the columns of table {@code intent} hold it ({@link IntentTable}): every value an
 * engine binds to write it, made by {@link IntentRows#row}. Parameter values are {@code byte[]}
 * for a BLOB, {@link Long} for an INTEGER and null for NULL; an engine binds them in order with
 * its own driver's calls. Immutable (the arrays it hands out are its own: do not change them).
 */
public final class IntentRow {
  private final byte[] lookup;
  private final byte @Nullable [] business;
  private final @Nullable Instant open;
  private final @Nullable Instant purge;
  private final byte[] record;
  private final byte @Nullable [] stub;
  private final @Nullable Instant due;

  IntentRow(byte[] lookup, byte @Nullable [] business, @Nullable Instant open,
      @Nullable Instant purge, byte[] record, byte @Nullable [] stub, @Nullable Instant due) {
    this.lookup = lookup;
    this.business = business;
    this.open = open;
    this.purge = purge;
    this.record = record;
    this.stub = stub;
    this.due = due;
  }

  /** Column {@code lookup}: the record's lookup key. */
  public byte[] lookup() {
    return lookup;
  }

  /** Column {@code business}: the record's business key, or null without a business id. */
  public byte @Nullable [] business() {
    return business;
  }

  /** Columns {@code open_s, open_ns}: the creation time while unfinished, null once terminal. */
  public @Nullable Instant open() {
    return open;
  }

  /** Columns {@code purge_s, purge_ns}: the expiry once terminal, null while unfinished. */
  public @Nullable Instant purge() {
    return purge;
  }

  /** Column {@code record}: the codec bytes. */
  public byte[] record() {
    return record;
  }

  /** Column {@code stub}: the unfinished stub, null once terminal or when no stub is written. */
  public byte @Nullable [] stub() {
    return stub;
  }

  /** Columns {@code due_s, due_ns}: the index time of the due index, null once terminal. */
  public @Nullable Instant due() {
    return due;
  }

  /**
   * The parameters of {@link IntentSql#INSERT}, in order: lookup, business, open (seconds,
   * nanoseconds), purge (seconds, nanoseconds), record, stub, due (seconds, nanoseconds).
   */
  public List<@Nullable Object> insertParameters() {
    return Arrays.asList(lookup, business, seconds(open), nanos(open), seconds(purge),
        nanos(purge), record, stub, seconds(due), nanos(due));
  }

  /**
   * The parameters of {@link IntentSql#UPDATE}, in order: open (seconds, nanoseconds), purge
   * (seconds, nanoseconds), record, stub, due (seconds, nanoseconds), then lookup.
   */
  public List<@Nullable Object> updateParameters() {
    return Arrays.asList(seconds(open), nanos(open), seconds(purge), nanos(purge), record, stub,
        seconds(due), nanos(due), lookup);
  }

  /** The epoch seconds of {@code t} as an INTEGER parameter, or null. */
  public static @Nullable Long seconds(@Nullable Instant t) {
    return t == null ? null : t.getEpochSecond();
  }

  /** The nanoseconds of {@code t} as an INTEGER parameter, or null. */
  public static @Nullable Long nanos(@Nullable Instant t) {
    return t == null ? null : (long) t.getNano();
  }
}
