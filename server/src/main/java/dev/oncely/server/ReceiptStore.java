package dev.oncely.server;

import dev.oncely.client.DuplicateIntentException;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreException;
import dev.oncely.server.internal.ReceiptRecords;
import dev.oncely.server.internal.SteppedPurge;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Receipts kept in one of the client's {@link IntentStore} engines: the embedded default (MapDB)
 * or SQLite for one instance, PostgreSQL for a fleet, the in-memory store for tests. The store's
 * unique constraint on (scope, operation, key) is the reservation, its compare-and-set on the
 * revision is the fencing of every later change, and its record format, key hashing, sealing and
 * purge are the client's. A receipt store holds receipts only: open a store of its own for it
 * (a client's intent found by {@link #get}, {@link #reserve} or {@link #findByStatusToken} is
 * refused as {@link dev.oncely.client.StoreCorruptedException}, listings skip it, and a client's
 * scheduler on that store would drive receipts as intents). On PostgreSQL give it a schema of its
 * own ({@code PostgresIntentStore.builder(ds).schema("oncely_receipts")}): the app's intents and
 * the receipts then share the database, and one transaction ({@code
 * dev.oncely.server.postgres.PostgresReceipts}), but not a table.
 *
 * <p>Thread-safe as the underlying store is. Every method may throw {@link StoreException} when
 * the store fails; nothing is then known to have changed.
 */
public final class ReceiptStore implements AutoCloseable {
  private final IntentStore store;
  private final SteppedPurge steppedPurge;

  private ReceiptStore(IntentStore store) {
    this.store = Objects.requireNonNull(store, "store");
    this.steppedPurge = new SteppedPurge(store);
  }

  /** Receipts on {@code store}, which this object closes when it is closed. */
  public static ReceiptStore on(IntentStore store) {
    return new ReceiptStore(store);
  }

  /** The store the receipts live in. */
  public IntentStore intentStore() {
    return store;
  }

  /**
   * Inserts {@code candidate} (revision 0) unless a receipt with its id exists: one short write on
   * the store's unique constraint, never a check then an insert.
   *
   * @return the candidate when it was inserted ({@link Reservation#reserved()} true), else the
   *     receipt that holds the key
   */
  public Reservation reserve(Receipt candidate) {
    Objects.requireNonNull(candidate, "candidate");
    if (candidate.revision() != 0) {
      throw new IllegalArgumentException("a reservation starts at revision 0");
    }
    IntentRecord record = ReceiptRecords.toRecord(candidate);
    // A receipt purged between the refused insert and the read is gone: insert again. Bounded,
    // since each round needs a purge to land in that gap.
    for (int round = 0; ; round++) {
      try {
        store.create(record);
        return new Reservation(candidate, true);
      } catch (DuplicateIntentException taken) {
        Optional<Receipt> holder = get(candidate.id());
        if (holder.isPresent()) {
          return new Reservation(holder.get(), false);
        }
        if (round >= 3) {
          throw new StoreException("the key of " + candidate.id().safeKey()
              + " was refused as taken but could not be read", taken);
        }
      }
    }
  }

  /**
   * Replaces {@code expected} with {@code replacement} if the stored receipt is still at {@code
   * expected}'s revision; {@code replacement} must carry the next revision.
   *
   * @return whether the change was made (false: someone else changed the receipt first)
   * @throws IllegalArgumentException if the ids differ or the revision is not the next one
   */
  public boolean replace(Receipt expected, Receipt replacement) {
    if (!expected.id().equals(replacement.id())) {
      throw new IllegalArgumentException("a receipt keeps its id");
    }
    if (replacement.revision() != expected.revision() + 1) {
      throw new IllegalArgumentException("the replacement carries revision "
          + replacement.revision() + ", not " + (expected.revision() + 1));
    }
    return store.compareAndSet(ReceiptRecords.toRecord(expected),
        ReceiptRecords.toRecord(replacement));
  }

  /** The receipt of {@code id}, if one is kept. */
  public Optional<Receipt> get(IntentId id) {
    return store.get(id).map(ReceiptRecords::fromRecord);
  }

  /** The receipt a status URL names, if {@code scope} and {@code operation} hold it. */
  public Optional<Receipt> findByStatusToken(String scope, String operation, String token) {
    return store.findByBusinessId(scope, operation, token).map(ReceiptRecords::fromRecord);
  }

  /** Every receipt still processing or pending (for operators, metrics and reconciliation). */
  public List<Receipt> listUnfinished() {
    List<Receipt> out = new ArrayList<>();
    for (IntentRecord r : store.listUnfinished()) {
      if (ReceiptRecords.isReceipt(r)) {
        out.add(ReceiptRecords.fromRecord(r));
      }
    }
    return out;
  }

  /**
   * Removes the finished receipts (completed, released) whose retention ended at {@code now}.
   *
   * @return how many were removed
   */
  public int purgeExpired(Instant now) {
    return store.purgeExpired(now);
  }

  /**
   * Removes the finished receipts whose retention ended by {@code now}, in steps: each step is
   * one purge of the receipts that expired within {@code step} of expiry time after the last one,
   * so one write never holds the store for more than the receipts of one step (what finished in
   * that span), however many the store holds. The first call on this object starts one step
   * before {@code now} (everything older goes in that first step); later calls go on from where
   * the last one stopped. Schedule it every few minutes.
   *
   * @return how many were removed
   * @throws IllegalArgumentException if {@code step} is not positive
   */
  public int purgeExpired(Instant now, Duration step) {
    return steppedPurge.purge(now, step);
  }

  /** Closes the underlying store. */
  @Override
  public void close() {
    store.close();
  }

  /**
   * The result of {@link #reserve}: the receipt, and whether this call inserted it (the caller
   * owns it and runs the handler) or found it (the caller answers a repeat).
   *
   * @param receipt the inserted candidate or the receipt holding the key
   * @param reserved whether this call inserted it
   */
  public record Reservation(Receipt receipt, boolean reserved) {}
}
