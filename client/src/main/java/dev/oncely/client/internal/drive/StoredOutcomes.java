package dev.oncely.client.internal.drive;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.IntentTag;
import dev.oncely.client.PendingReason;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome an app reads for a stored intent, for every entry point: the record's own, except
 * that an unfinished record driven in this process right now reads {@link
 * PendingReason#IN_PROGRESS}, not as driven elsewhere.
 */
public final class StoredOutcomes {
  private StoredOutcomes() {}

  /** The outcome of intent {@code id} in {@code store}, or empty without a record. */
  public static Optional<IntentOutcome> byId(IntentStore store, IntentId id) {
    Objects.requireNonNull(id, "id");
    return store.get(id).map(record -> of(store, record));
  }

  /**
   * The outcome of the intent {@code tag} names by its business id, or empty without a record.
   *
   * @throws IllegalArgumentException if {@code tag} has no business id
   */
  public static Optional<IntentOutcome> byTag(IntentStore store, IntentTag tag) {
    Objects.requireNonNull(tag, "tag");
    if (tag.businessId() == null) {
      throw new IllegalArgumentException(tag + " has no business id: its record can only be"
          + " found by the key the call used");
    }
    return store.findByBusinessId(tag.scope(), tag.operation(), tag.businessId())
        .map(record -> of(store, record));
  }

  private static IntentOutcome of(IntentStore store, IntentRecord record) {
    boolean unfinished = !record.state().isTerminal()
        && record.state() != dev.oncely.client.IntentState.NEEDS_RECONCILIATION;
    if (unfinished && DriveRegistry.process().isDriven(store, record.id())) {
      return new IntentOutcome.Pending(record.id(), PendingReason.IN_PROGRESS,
          "a drive of the intent is running in this process", record.nextAttemptAt(),
          record.lastResponse(), null);
    }
    return IntentOutcome.of(record);
  }
}
