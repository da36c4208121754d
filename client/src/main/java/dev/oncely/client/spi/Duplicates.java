package dev.oncely.client.spi;

import dev.oncely.client.DuplicateIntentException;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;

/**
 * Why a store refuses {@link dev.oncely.client.IntentStore#create}: the record's id is taken, or
 * its business id is taken in the same scope and operation. Engines that insert first and look
 * only when the insert changed nothing ({@code INSERT ... ON CONFLICT DO NOTHING}, a unique
 * constraint) classify with {@link #afterConflict}; engines that look first throw
 * {@link #idTaken} or {@link #businessIdTaken}. Either way every store gives the same exception
 * and message. Messages name the record by {@link IntentId#toString() safe key}, never the key.
 */
public final class Duplicates {
  private Duplicates() {}

  /** The refusal of a record whose id exists in {@code store}. */
  public static DuplicateIntentException idTaken(String store, IntentId id) {
    return new DuplicateIntentException(id, store + ": record " + id + " already exists");
  }

  /** The refusal of a record whose business id another record of {@code store} holds. */
  public static DuplicateIntentException businessIdTaken(String store, IntentId id) {
    return new DuplicateIntentException(id, store + ": the business id of " + id
        + " is already used by another record in scope '" + id.scope() + "' and operation '"
        + id.operation() + "'");
  }

  /**
   * Classifies an insert of {@code record} that changed nothing, from what a look-up in the same
   * transaction found.
   *
   * @param idTaken whether a record with {@code record}'s id exists
   * @param businessIdTaken whether a record with its business id exists in its scope and operation
   * @return the exception to throw: {@link DuplicateIntentException} when either is taken, else
   *     {@link StoreCorruptedException} (the store refused an insert it has no reason to refuse)
   */
  public static RuntimeException afterConflict(String store, IntentRecord record, boolean idTaken,
      boolean businessIdTaken) {
    if (idTaken) {
      return idTaken(store, record.id());
    }
    if (businessIdTaken && record.businessId() != null) {
      return businessIdTaken(store, record.id());
    }
    return new StoreCorruptedException(store + ": inserting record " + record.id()
        + " changed nothing, yet neither its id nor its business id is taken");
  }
}
