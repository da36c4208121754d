package dev.oncely.persistence.crash;

import java.util.BitSet;

/**
 * What the SDK crash children told the parent was durable, over all runs: intents whose record was
 * created ({@code CREATED n}) and intents whose outcome was stored as completed ({@code OUTCOME n
 * COMPLETED}). Any line that reports a failure fails the test at once.
 */
final class SdkAcks {
  private final BitSet created = new BitSet();
  private final BitSet completed = new BitSet();

  /** Records one child line; returns whether it was an outcome. */
  boolean record(String line, ChildProcess child, String context) {
    String[] parts = line.split(" ");
    switch (parts[0]) {
      case "OPENED", "RESUMING", "ALLDONE":
        return false;
      case "CREATED":
        created.set(Integer.parseInt(parts[1]));
        return false;
      case "OUTCOME":
        if (!parts[2].equals("COMPLETED") && !parts[2].equals("PENDING")) {
          throw new AssertionError(context + ": intent " + parts[1] + " ended " + parts[2]
              + "; stderr: " + child.stderrText());
        }
        if (parts[2].equals("COMPLETED")) {
          completed.set(Integer.parseInt(parts[1]));
        }
        return true;
      default:
        throw new AssertionError(context + ": the child reported '" + line + "'; stderr: "
            + child.stderrText());
    }
  }

  boolean created(int n) {
    return created.get(n);
  }

  boolean completed(int n) {
    return completed.get(n);
  }

  int completedCount() {
    return completed.cardinality();
  }
}
