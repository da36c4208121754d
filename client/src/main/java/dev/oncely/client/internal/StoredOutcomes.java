package dev.oncely.client.internal;

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

  /**
   * The outcome of a resume of {@code sent} (the record as the resume read it) whose call ended
   * without a response, or that never issued one: the stored outcome, except while the owner is
   * closed ({@code stopped} says how, null while it is open) and nothing has changed the record
   * since the resume read it: then the resume never started, nothing of it was sent, and the
   * reason an earlier drive stored (or none, for a record a crash left in flight) is not what
   * happened to this one: {@link PendingReason#INTERRUPTED}. A store that fails reading reads
   * {@link PendingReason#STORE_FAILED}.
   */
  public static IntentOutcome afterResume(IntentStore store, IntentRecord sent,
      @org.jspecify.annotations.Nullable String stopped) {
    IntentRecord now;
    try {
      now = stopped == null ? store.get(sent.id()).orElse(sent) : readAfterClose(store, sent);
    } catch (RuntimeException e) {
      return new IntentOutcome.Pending(sent.id(), PendingReason.STORE_FAILED,
          "the store failed reading the outcome (" + e.getClass().getSimpleName() + ")", null,
          null, e);
    }
    boolean unfinished = !now.state().isTerminal()
        && now.state() != dev.oncely.client.IntentState.NEEDS_RECONCILIATION;
    if (stopped != null && unfinished && now.revision() == sent.revision()) {
      return new IntentOutcome.Pending(sent.id(), PendingReason.INTERRUPTED, stopped
          + " before the resume of this record started; nothing of it was sent, and the record"
          + " is unchanged and resumable", now.nextAttemptAt(), now.lastResponse(), null);
    }
    return IntentOutcome.of(now);
  }

  /** The record as stored, or as the resume read it when the (maybe closed) store cannot say. */
  private static IntentRecord readAfterClose(IntentStore store, IntentRecord sent) {
    try {
      return store.get(sent.id()).orElse(sent);
    } catch (RuntimeException closedWithIt) {
      return sent;
    }
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
