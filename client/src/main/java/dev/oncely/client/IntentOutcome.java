package dev.oncely.client;

import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.StoredResponse;
import java.time.Instant;
import java.util.Objects;

/**
 * What is known about an intent when a drive ends. The outcome was persisted in the store before it
 * was handed to the caller. Exactly one of:
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
  static IntentOutcome of(dev.oncely.client.spi.IntentRecord record) {
    return dev.oncely.client.internal.Outcomes.of(java.util.Objects.requireNonNull(record,
        "record"));
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
  record Pending(IntentId id, PendingReason reason, String detail, Instant checkAgainAt,
      StoredResponse lastResponse, Throwable cause) implements IntentOutcome {
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
  record NeedsReconciliation(IntentId id, String reason, StoredResponse lastResponse)
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
