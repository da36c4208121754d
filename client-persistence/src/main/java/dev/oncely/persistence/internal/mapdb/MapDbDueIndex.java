package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.DueTime;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.spi.sql.UnfinishedStub;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The MapDB engine's index of unfinished records by due time, which {@code claimDue} walks: kept
 * in memory only, never in a file, so it changes neither the files, nor the journal, nor what a
 * crash can leave (after any restart it is built again from what the files hold).
 *
 * <p><b>Built</b> once per open store, by the first claim, inside a group commit, from the
 * unfinished index of the commits acknowledged so far: each entry from its record's {@link
 * UnfinishedStub} (creation and next attempt time, no state or last update), so no record is read.
 * Such an entry is <em>early</em>: at its record's {@link UnfinishedStub#dueBound earliest possible
 * due time}, never after its {@link DueTime#of due time}. The claim ({@link
 * dev.oncely.client.spi.DueClaim}) reads an early entry's record once, {@link #correct corrects}
 * the entry, and stays exact meanwhile.
 *
 * <p><b>Kept</b> by every write after that: each create and compare-and-set of a group records a
 * {@link Move} (drop the record's entry, at its early or its exact time, and put it at the new due
 * time), and the engine applies a group's moves, in order, once the group's journal frame is
 * durable and before its callers are released; moves of a group that failed are dropped with it.
 * Since the build read only what earlier commits left, every write not in it is applied as a move,
 * once.
 *
 * <p><b>Cost.</b> About 120 bytes of heap per unfinished record with a due time (a skip-list node,
 * the entry and its 32-byte lookup key; 117 measured at 100,000), from the first claim until the
 * store is closed; none for finished records. Thread-safe: moves and corrections are serialized on this index, walks take no
 * lock (a walk may see a move half done; the claim reads each record and decides by it).
 */
public final class MapDbDueIndex {
  private final ConcurrentSkipListSet<Entry> entries = new ConcurrentSkipListSet<>();

  /**
   * One entry: the record under {@code lookup} is due at {@code at()} (or no earlier, for an entry
   * built from a stub). Ordered by time, then lookup key.
   */
  public static final class Entry implements Comparable<Entry> {
    private final long seconds;
    private final int nanos;
    private final byte[] lookup;

    Entry(Instant at, byte[] lookup) {
      this.seconds = at.getEpochSecond();
      this.nanos = at.getNano();
      this.lookup = lookup;
    }

    /** When the record is due (or, for an early entry, the earliest it can be). */
    public Instant at() {
      return Instant.ofEpochSecond(seconds, nanos);
    }

    /** The record's {@code RecordCodec.lookupKey}; not copied, never change it. */
    public byte[] lookup() {
      return lookup;
    }

    @Override
    public int compareTo(Entry o) {
      int c = Long.compare(seconds, o.seconds);
      if (c == 0) {
        c = Integer.compare(nanos, o.nanos);
      }
      return c != 0 ? c : MapDbChanges.UNSIGNED.compare(lookup, o.lookup);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Entry e && compareTo(e) == 0;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(seconds) * 31 + nanos;
    }
  }

  /**
   * What one write does to the index: drop the record's entry at {@code early} and at {@code was}
   * (either may be null: no such entry), then put one at {@code is} (null: none).
   *
   * @param lookup the record's lookup key
   * @param early where a build from the stub of the record before the write put its entry
   * @param was the due time of the record before the write
   * @param is the due time of the record the write stores
   */
  record Move(byte[] lookup, Instant early, Instant was, Instant is) {
    /** The move of a write that replaces {@code before} (null: a create) with {@code after}. */
    public static Move of(byte[] lookup, IntentRecord before, IntentRecord after) {
      boolean listed = before != null && !before.state().isTerminal();
      return new Move(lookup, listed ? UnfinishedStub.dueBound(before) : null,
          before == null ? null : DueTime.of(before), DueTime.of(after));
    }
  }

  /** Adds an early entry, while the index is built (before anyone walks it). */
  public void addEarly(byte[] lookup, Instant early) {
    entries.add(new Entry(early, lookup));
  }

  /** Applies the moves of one durable group commit, in the order its writes ran. */
  public synchronized void apply(List<Move> moves) {
    for (Move m : moves) {
      if (m.early() != null) {
        entries.remove(new Entry(m.early(), m.lookup()));
      }
      if (m.was() != null) {
        entries.remove(new Entry(m.was(), m.lookup()));
      }
      if (m.is() != null) {
        entries.add(new Entry(m.is(), m.lookup()));
      }
    }
  }

  /**
   * Moves {@code entry} to {@code due} (null: drops it), unless a write moved it meanwhile: a claim
   * found its record due at another time, never due, or missing.
   */
  public synchronized void correct(Entry entry, Instant due) {
    if (entries.remove(entry) && due != null) {
      entries.add(new Entry(due, entry.lookup()));
    }
  }

  /** The entries, earliest first; a weakly consistent view that writes may change under it. */
  public Iterable<Entry> walk() {
    return entries;
  }
}
