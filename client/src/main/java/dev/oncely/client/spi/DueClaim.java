package dev.oncely.client.spi;

import dev.oncely.client.DueTime;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One {@link dev.oncely.client.IntentStore#claimDue} of a store that keeps an index of its
 * unfinished records by due time: the rule which records a claim returns, and in which order, in
 * one place for every engine. The store walks its index from the earliest entry, asks {@link
 * #wants} before each entry, reads the entry's record and {@link #offer offers} it; {@link
 * #records} is then the claim.
 *
 * <p>The record decides, never the index: a record is claimed when its own {@link DueTime#of due
 * time} is at or before {@code now}, and the claim holds the {@code limit} earliest-due of the
 * records offered, earliest first. An index entry may be <em>early</em> (its time at or before the
 * record's due time: an index rebuilt from what a record's summary holds, or left by an older
 * library) but never late: {@link #wants} stops the walk only once no later entry can hold a
 * record due before the claim's latest, so the claim is exact whatever early entries the index
 * holds, and an entry that is exact costs nothing more than the record it returns. An entry whose
 * record is due at another time, never due, or missing is reported by {@link #offer} so the store
 * can correct it. A record offered twice (a write moved its entry during the walk) is claimed once.
 *
 * <p>Not thread-safe: one instance per claim.
 */
public final class DueClaim {
  private final Instant now;
  private final int limit;
  /** The records kept so far, the latest due (and, among equals, the latest offered) on top. */
  private final PriorityQueue<Kept> kept;
  private final Set<IntentId> ids = new HashSet<>();
  private long offered;

  private record Kept(Instant due, long order, IntentRecord record) {}

  private static final Comparator<Kept> LATEST_FIRST =
      Comparator.comparing(Kept::due).thenComparingLong(Kept::order).reversed();

  /**
   * The time a store whose due-time index holds every unfinished record (a column beside each row,
   * say) gives a record that is never due ({@code NEEDS_RECONCILIATION}): later than any {@code
   * now}, so no claim reaches it, yet not null, so "no due time computed yet" stays apart.
   */
  public static final Instant NEVER = Instant.MAX;

  /**
   * The time such a store indexes {@code record} under: its {@link DueTime#of due time}, {@link
   * #NEVER} when it is unfinished but never due, null once it is finished (no entry).
   *
   * @throws NullPointerException if {@code record} is null
   */
  public static @Nullable Instant indexTime(IntentRecord record) {
    if (record.state().isTerminal()) {
      return null;
    }
    Instant due = DueTime.of(record);
    return due != null ? due : NEVER;
  }

  /**
   * Starts a claim of up to {@code limit} records due at or before {@code now}.
   *
   * @throws NullPointerException if {@code now} is null
   * @throws IllegalArgumentException if {@code limit} is not positive
   */
  public DueClaim(Instant now, int limit) {
    StoreRules.checkClaim(now, limit);
    this.now = now;
    this.limit = limit;
    this.kept = new PriorityQueue<>(Math.min(limit, 64) + 1, LATEST_FIRST);
  }

  /**
   * Whether the walk should read the entry indexed at {@code indexed}, the next in index order:
   * false once {@code indexed} is after {@code now}, or the claim is full and every record it holds
   * is due no later than {@code indexed}. The walk stops at the first false; every later entry
   * would be false too.
   *
   * @throws NullPointerException if {@code indexed} is null
   */
  public boolean wants(Instant indexed) {
    if (indexed.isAfter(now)) {
      return false;
    }
    Kept latest = kept.peek();
    return kept.size() < limit || latest == null || indexed.isBefore(latest.due());
  }

  /**
   * Offers the record an entry indexed at {@code indexed} leads to ({@code null}: the store holds
   * no record there any more); the claim keeps it if it is due at or before {@code now} and among
   * the {@code limit} earliest offered.
   *
   * @return whether the entry is right: the record exists and is due at exactly {@code indexed};
   *     false tells the store to move the entry to the record's {@link DueTime#of due time}, or to
   *     drop it when that is null or the record is missing
   * @throws NullPointerException if {@code indexed} is null
   */
  public boolean offer(@Nullable IntentRecord record, Instant indexed) {
    if (record == null) {
      return false;
    }
    Instant due = DueTime.of(record);
    if (due != null && !due.isAfter(now) && !ids.contains(record.id())) {
      Kept latest = kept.peek();
      if (kept.size() < limit) {
        keep(due, record);
      } else if (latest != null && due.isBefore(latest.due())) {
        kept.poll();
        ids.remove(latest.record().id());
        keep(due, record);
      }
    }
    return indexed.equals(due);
  }

  private void keep(Instant due, IntentRecord record) {
    kept.add(new Kept(due, offered++, record));
    ids.add(record.id());
  }

  /** The records claimed, earliest due first (among equals, in the order they were offered). */
  public List<IntentRecord> records() {
    List<Kept> sorted = new ArrayList<>(kept);
    sorted.sort(LATEST_FIRST.reversed());
    List<IntentRecord> out = new ArrayList<>(sorted.size());
    for (Kept k : sorted) {
      out.add(k.record());
    }
    return out;
  }
}
