package dev.oncely.client;

import java.util.Objects;

/**
 * Finds out what happened to an intent that cannot be resent safely (older than the server's key
 * retention, or answered by a replayed server error), for example by querying the server with the
 * business id. Called on the driving thread by every drive of the intent API that meets such a
 * record: {@code resumePending()}, {@code resume(id)}, a re-submit of the spec, and the drive that
 * finds the record too old or the answer a replayed error. The interceptor has no reconciler: it
 * fails the call with {@link NeedsReconciliationException} and leaves the record. The default
 * answers {@link Resolution#unknown(String)}, leaving the record in {@code NEEDS_RECONCILIATION}.
 *
 * <p>A reconciler never resends the intent: a correction is a new intent with a new key.
 */
@FunctionalInterface
public interface Reconciler {
  /** Leaves every record for an operator. */
  Reconciler MANUAL = record -> Resolution.unknown("no reconciler configured");

  /**
   * Resolves {@code record}.
   *
   * @throws Exception if the lookup failed; the record is left as it was and retried on the next
   *     {@code resumePending()}
   */
  Resolution reconcile(IntentRecord record) throws Exception;

  /** What a reconciler found out. */
  final class Resolution {
    private final IntentState state;
    private final StoredResponse response;
    private final String reason;

    private Resolution(IntentState state, StoredResponse response, String reason) {
      this.state = state;
      this.response = response;
      this.reason = reason;
    }

    /** The effect happened; {@code evidence} is the answer that proves it (kept as the response). */
    public static Resolution completed(StoredResponse evidence) {
      return new Resolution(IntentState.COMPLETED, Objects.requireNonNull(evidence, "evidence"),
          "reconciled as completed");
    }

    /** The effect did not and will not happen; {@code evidence} is kept as the response. */
    public static Resolution rejected(StoredResponse evidence) {
      return new Resolution(IntentState.REJECTED, Objects.requireNonNull(evidence, "evidence"),
          "reconciled as rejected");
    }

    /** Still unknown; {@code reason} (safe words) is stored on the record. */
    public static Resolution unknown(String reason) {
      return new Resolution(IntentState.NEEDS_RECONCILIATION, null,
          Objects.requireNonNull(reason, "reason"));
    }

    /** The state the record moves to. */
    public IntentState state() {
      return state;
    }

    /** The evidence response, or null for {@link #unknown(String)}. */
    public StoredResponse response() {
      return response;
    }

    /** Why, in safe words. */
    public String reason() {
      return reason;
    }
  }
}
