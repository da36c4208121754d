package dev.oncely.spring.boot;

import dev.oncely.client.IntentOutcome;
import java.util.List;
import java.util.logging.Logger;

/**
 * The INFO lines an operator reads about work the app did not ask for: the resume at start-up and
 * the due-work scheduler's background drives. Counts by outcome only, never a key, scope or
 * business id.
 */
final class OutcomeCounts {
  private static final Logger DUE_WORK = Logger.getLogger("dev.oncely.spring.boot.DueWork");

  private OutcomeCounts() {}

  /** Logs one line for the drives one due-work tick started, once they all ended. */
  static void logDueWork(List<IntentOutcome> outcomes) {
    DUE_WORK.info(() -> "Oncely due work drove " + intents(outcomes.size())
        + " in the background: " + of(outcomes));
  }

  /** {@code n} intents, in words. */
  static String intents(int n) {
    return n + (n == 1 ? " unfinished intent" : " unfinished intents");
  }

  /**
   * The outcomes counted by kind: {@code 10 completed, 2 still pending}; kinds with no outcome are
   * left out.
   */
  static String of(List<IntentOutcome> outcomes) {
    int completed = 0;
    int rejected = 0;
    int conflict = 0;
    int pending = 0;
    int reconcile = 0;
    for (IntentOutcome outcome : outcomes) {
      if (outcome instanceof IntentOutcome.Completed) {
        completed++;
      } else if (outcome instanceof IntentOutcome.Rejected) {
        rejected++;
      } else if (outcome instanceof IntentOutcome.KeyConflict) {
        conflict++;
      } else if (outcome instanceof IntentOutcome.Pending) {
        pending++;
      } else {
        reconcile++;
      }
    }
    StringBuilder out = new StringBuilder();
    append(out, completed, "completed");
    append(out, rejected, "rejected");
    append(out, conflict, "key conflict");
    append(out, pending, "still pending");
    append(out, reconcile, "need reconciliation");
    return out.length() == 0 ? "no outcome could be read" : out.toString();
  }

  private static void append(StringBuilder out, int count, String what) {
    if (count == 0) {
      return;
    }
    if (out.length() > 0) {
      out.append(", ");
    }
    out.append(count).append(' ').append(what);
  }
}
