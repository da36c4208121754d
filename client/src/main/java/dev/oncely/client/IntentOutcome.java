package dev.oncely.client;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What is known about an intent when a drive ends. The state it mirrors was persisted in the store
 * before it was handed to the caller, except for a {@link Pending} whose reason is {@link
 * PendingReason#STORE_FAILED} (the store failed; the last durable state is kept) or {@link
 * PendingReason#DRIVEN_ELSEWHERE} (another driver owns the record). Exactly one of:
 *
 * <ul>
 *   <li>{@link Completed}: the server produced the effect; its response is kept.
 *   <li>{@link Rejected}: the server refused with a business error; its response is kept.
 *   <li>{@link KeyConflict}: the server saw this key with another payload. Terminal: never retried
 *       under a new key.
 *   <li>{@link Pending}: the outcome is <em>not known yet</em> (timeouts after send, still
 *       processing, deadline, empty retry budget). Never treat it as failed: check again at {@link
 *       Pending#checkAgainAt()} with {@code resumePending()} or by re-submitting the same spec.
 *   <li>{@link NeedsReconciliation}: the intent cannot be resent safely (past the server's key
 *       retention, or the server replayed an error); find out out-of-band what happened.
 * </ul>
 */
public sealed interface IntentOutcome {
  /** The intent this outcome belongs to. */
  IntentId id();

  /** The record state this outcome mirrors. */
  IntentState state();

  /**
   * What the stored {@code record} means to a caller, without I/O (an unfinished record reads as
   * {@link Pending}); for apps that read the store directly, for example after an interceptor
   * call.
   *
   * @throws NullPointerException if {@code record} is null
   */
  static IntentOutcome of(IntentRecord record) {
    Objects.requireNonNull(record, "record");
    switch (record.state()) {
      case COMPLETED:
        return new Completed(record.id(), record.lastResponse(), record.replayed());
      case REJECTED:
        return new Rejected(record.id(), record.lastResponse());
      case KEY_CONFLICT:
        return new KeyConflict(record.id(), record.lastResponse());
      case NEEDS_RECONCILIATION:
        return new NeedsReconciliation(record.id(),
            record.reason() == null ? "needs reconciliation" : record.reason(),
            record.lastResponse());
      default:
        return pendingOf(record);
    }
  }

  private static IntentOutcome pendingOf(IntentRecord record) {
    PendingReason reason = PendingReason.DRIVEN_ELSEWHERE;
    String detail = "the intent is " + record.state() + " and its record names no drive in this"
        + " process";
    String text = record.reason();
    if (record.state() == IntentState.PENDING && text != null) {
      PendingReason named = PendingReason.ofRecordText(text);
      if (named != null) {
        reason = named;
        detail = text.substring(text.indexOf(':') + 1).trim();
      } else {
        detail = text;
      }
    }
    return new Pending(record.id(), reason, detail, record.nextAttemptAt(),
        record.lastResponse(), null);
  }

  /** Whether no further attempt will be made. */
  default boolean isFinal() {
    return state().isTerminal();
  }

  /** The server produced the effect; {@code replayed} if it marked the answer as a replay. */
  record Completed(IntentId id, StoredResponse response, boolean replayed) implements IntentOutcome {
    /** Checks the components are present. */
    public Completed {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(response, "response");
    }

    @Override
    public IntentState state() {
      return IntentState.COMPLETED;
    }
  }

  /** The server refused the intent with a business error (4xx). */
  record Rejected(IntentId id, StoredResponse response) implements IntentOutcome {
    /** Checks the components are present. */
    public Rejected {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(response, "response");
    }

    @Override
    public IntentState state() {
      return IntentState.REJECTED;
    }
  }

  /** The server saw this key with another payload; {@code response} is its answer. */
  record KeyConflict(IntentId id, StoredResponse response) implements IntentOutcome {
    /** Checks the components are present. */
    public KeyConflict {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(response, "response");
    }

    @Override
    public IntentState state() {
      return IntentState.KEY_CONFLICT;
    }
  }

  /**
   * The outcome is not known yet. {@code detail} explains in safe words; {@code checkAgainAt} is
   * when to look again (null if nothing is scheduled); {@code lastResponse} is the last answer (may
   * be null); {@code cause} the last failure (may be null, for example a {@link
   * RetryBudgetExhaustedException}).
   */
  record Pending(IntentId id, PendingReason reason, String detail, @Nullable Instant checkAgainAt,
      @Nullable StoredResponse lastResponse, @Nullable Throwable cause) implements IntentOutcome {
    /** Checks the required components are present. */
    public Pending {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(detail, "detail");
    }

    @Override
    public IntentState state() {
      return IntentState.PENDING;
    }
  }

  /**
   * The intent cannot be resent safely; {@code reason} explains; {@code lastResponse} may be null.
   */
  record NeedsReconciliation(IntentId id, String reason, @Nullable StoredResponse lastResponse)
      implements IntentOutcome {
    /** Checks the required components are present. */
    public NeedsReconciliation {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(reason, "reason");
    }

    @Override
    public IntentState state() {
      return IntentState.NEEDS_RECONCILIATION;
    }
  }
}
