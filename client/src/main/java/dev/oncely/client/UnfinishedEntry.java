package dev.oncely.client;

import java.time.Instant;
import java.util.Objects;

/**
 * One unfinished record as {@link IntentStore#listUnfinishedIds()} lists it: its id and when it is
 * due, without its headers, body or response, so a resume can list every unfinished intent first
 * and load each record only when its drive starts. Immutable.
 *
 * @param id the record's id
 * @param createdAt when the record was created (the listing is ordered by it, oldest first)
 * @param nextAttemptAt when the next attempt is due, or null if it is due now
 */
public record UnfinishedEntry(IntentId id, Instant createdAt, Instant nextAttemptAt) {
  /**
   * Validates the entry.
   *
   * @throws NullPointerException if {@code id} or {@code createdAt} is null
   */
  public UnfinishedEntry {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** The entry of {@code record}. */
  public static UnfinishedEntry of(IntentRecord record) {
    return new UnfinishedEntry(record.id(), record.createdAt(), record.nextAttemptAt());
  }

  /** When the record is due: {@link #nextAttemptAt()}, or {@link #createdAt()} when that is null. */
  public Instant dueAt() {
    return nextAttemptAt == null ? createdAt : nextAttemptAt;
  }
}
