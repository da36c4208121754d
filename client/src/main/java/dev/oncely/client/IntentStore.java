package dev.oncely.client;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where intent records live. Both entry points create a record, already {@code IN_FLIGHT},
 * <em>before</em> the first byte is sent (a record an app creates itself from {@code
 * IdempotentClient.newRecord} is {@code NEW}: never sent) and write the outcome <em>before</em> the
 * caller is told, so a durable store lets {@code resumePending()} finish every intent after a crash
 * without a second effect. Apps hold one to hand it to a client; engines implement it (the record
 * format and helpers are in {@code dev.oncely.client.spi}).
 *
 * <p><b>Contract</b> (checked for every engine by the {@code IntentStoreContract} tests in the
 * client test-jar):
 * <ul>
 *   <li>Implementations are safe for concurrent use by many threads.
 *   <li>A method that returns normally has made its write durable to the degree the engine
 *       promises (the {@link InMemoryIntentStore} promises nothing across restarts).
 *   <li>Records are keyed by {@link IntentId}: the same key string in another scope or operation
 *       is another record.
 *   <li>Within one scope and operation, a business id belongs to at most one record.
 *   <li>A read never returns a record that differs from one that was written (durable engines
 *       verify checksums and throw {@link StoreCorruptedException} instead).
 * </ul>
 *
 * <p>Every method may throw {@link StoreException} (or a subclass) when the engine fails; the
 * store is then unchanged by that call unless the engine documents otherwise.
 */
public interface IntentStore extends AutoCloseable {

  /**
   * Stores a new record. Its {@link IntentRecord#revision() revision} must be 0.
   *
   * @throws DuplicateIntentException if a record with the same id exists, or another record in the
   *     same scope and operation has the same business id; nothing is written
   * @throws IllegalArgumentException if the revision is not 0
   * @throws StoreException if the engine fails; the record may then be absent
   */
  void create(IntentRecord record);

  /**
   * Replaces {@code expected} with {@code replacement} if the stored record still has the revision
   * of {@code expected}. Use {@link IntentRecord#successor()} to build the replacement.
   *
   * @return true if the replacement was stored; false if the record is missing or was changed by
   *     someone else since {@code expected} was read
   * @throws IllegalArgumentException if the ids or business ids differ, or the replacement's
   *     revision is not {@code expected.revision() + 1}
   * @throws StoreException if the engine fails
   */
  boolean compareAndSet(IntentRecord expected, IntentRecord replacement);

  /**
   * Returns the record with {@code id}, if any.
   *
   * @throws StoreCorruptedException if the stored bytes fail verification
   */
  Optional<IntentRecord> get(IntentId id);

  /**
   * Returns the record carrying {@code businessId} in {@code scope} and {@code operation}, if any.
   *
   * @throws StoreCorruptedException if the stored bytes fail verification
   */
  Optional<IntentRecord> findByBusinessId(String scope, String operation, String businessId);

  /**
   * Returns every record whose state is not {@linkplain dev.oncely.client.IntentState#isTerminal()
   * terminal}, oldest first. Durable engines answer from an index of unfinished records, not a scan.
   */
  List<IntentRecord> listUnfinished();

  /**
   * Returns the id and due time of every record whose state is not terminal, oldest first, like
   * {@link #listUnfinished()} but without holding every record in memory at once: resume lists
   * these first and loads each record with {@link #get} when its drive starts (a record finished
   * meanwhile then reads as terminal, one deleted as absent). Durable engines answer from their
   * unfinished index. The default maps {@link #listUnfinished()}.
   *
   * @throws StoreCorruptedException if the stored bytes fail verification
   */
  default List<UnfinishedEntry> listUnfinishedIds() {
    List<IntentRecord> records = listUnfinished();
    List<UnfinishedEntry> entries = new ArrayList<>(records.size());
    for (IntentRecord r : records) {
      entries.add(UnfinishedEntry.of(r));
    }
    return entries;
  }

  /**
   * Calls {@code visitor} with every finished (terminal) record, in no particular order: for
   * operator tools that look a finished record up by something other than its id (a short key
   * hash, a business id in any scope). Engines may read and decode every finished record, so a call
   * costs time proportional to their number; the SDK's own paths never call it. The visitor runs on
   * the calling thread while the engine reads and must not call this store.
   *
   * @throws UnsupportedOperationException if the engine cannot enumerate finished records (the
   *     default)
   * @throws StoreCorruptedException if a record fails verification
   * @throws StoreException if the engine fails
   */
  default void forEachFinished(Consumer<IntentRecord> visitor) {
    throw new UnsupportedOperationException(getClass().getName()
        + " cannot enumerate finished records");
  }

  /**
   * Deletes finished (terminal) records whose {@link IntentRecord#expiresAt()} is at or before
   * {@code now}. Unfinished records are never purged: they must be resolved or reconciled first.
   *
   * @return how many records were deleted
   */
  int purgeExpired(Instant now);

  /**
   * Claims up to {@code limit} unfinished records that are {@linkplain DueTime due} at {@code now},
   * for this store instance to drive (the due-work scheduler calls it on every tick): the records
   * whose {@link DueTime#of due time} is at or before {@code now}, earliest due first (records due
   * at the same time in no particular order), the {@code limit} earliest of them when more are due.
   * Stores shared by several processes hand each due record to one claimer at a time and hold a
   * lease for it until {@link #release}, the lease's expiry, or a write that ends the drive.
   *
   * <p><b>Cost.</b> A claim must cost what it claims, not what the store holds: every engine
   * Oncely ships answers from an index by due time and reads only the records it returns (plus,
   * once per record, one whose index entry it corrects). The default, for engines without such an
   * index, reads every unfinished record with {@link #listUnfinished()} on every call: override it.
   *
   * @return the claimed records, earliest due first; may be empty
   * @throws NullPointerException if {@code now} is null
   * @throws IllegalArgumentException if {@code limit} is not positive
   * @throws StoreException if the engine fails; nothing is claimed
   */
  default List<IntentRecord> claimDue(Instant now, int limit) {
    StoreRules.checkClaim(now, limit);
    List<IntentRecord> due = new ArrayList<>();
    for (IntentRecord r : listUnfinished()) {
      Instant at = DueTime.of(r);
      if (at != null && !at.isAfter(now)) {
        due.add(r);
      }
    }
    due.sort(java.util.Comparator.comparing(DueTime::of));
    return due.size() <= limit ? due : new ArrayList<>(due.subList(0, limit));
  }

  /**
   * Ends this instance's claim on {@code id} (taken by {@link #claimDue}) once the drive it started
   * is over, so another instance may take the record when it is next due. The default does
   * nothing: stores without leases hold no claim.
   *
   * @throws StoreException if the engine fails; the claim then ends when its lease expires
   */
  default void release(IntentId id) {}

  /**
   * The store whose records this one holds: itself, or for a decorator that forwards every call
   * (metrics, tracing) the store it decorates. The SDK keeps one drive per intent and store in a
   * process, and tells stores apart by this, so a decorated view and the plain store never drive
   * one intent at once. {@link dev.oncely.client.spi.ForwardingIntentStore} answers its delegate's.
   */
  default IntentStore underlying() {
    return this;
  }

  /** Releases files, locks and threads. Idempotent. Calls after close throw {@link StoreException}. */
  @Override
  void close();
}
