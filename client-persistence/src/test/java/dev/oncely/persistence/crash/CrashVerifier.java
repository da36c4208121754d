package dev.oncely.persistence.crash;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Checks a store after a crash against what the children were told was durable: every
 * acknowledged record is present with at least the acknowledged revision, every present record
 * holds exactly the fields of its revision (checksums verified by the engine on read), and the
 * unfinished index lists exactly the unfinished records.
 */
final class CrashVerifier {
  private CrashVerifier() {}

  /** Returns every broken promise found; empty when the store is right. */
  static List<String> problems(IntentStore store, Map<String, Long> acknowledged) {
    List<String> problems = new ArrayList<>();
    Set<String> unfinished = new HashSet<>();
    for (int n = 0; n < CrashWorkload.KEYS; n++) {
      String key = CrashWorkload.key(n);
      Optional<IntentRecord> stored;
      try {
        stored = store.get(CrashWorkload.id(key));
      } catch (RuntimeException e) {
        problems.add(key + ": read failed: " + e);
        continue;
      }
      Long acked = acknowledged.get(key);
      if (stored.isEmpty()) {
        if (acked != null) {
          problems.add(key + ": acknowledged at revision " + acked + " but missing");
        }
        continue;
      }
      IntentRecord r = stored.get();
      if (acked != null && r.revision() < acked) {
        problems.add(key + ": acknowledged at revision " + acked + " but stored at "
            + r.revision());
      }
      String wrong = CrashWorkload.problemWith(r);
      if (wrong != null) {
        problems.add(wrong);
      }
      if (!r.state().isTerminal()) {
        unfinished.add(key);
      }
    }
    Set<String> listed = new HashSet<>();
    try {
      for (IntentRecord r : store.listUnfinished()) {
        listed.add(r.id().key());
        String wrong = CrashWorkload.problemWith(r);
        if (wrong != null) {
          problems.add("listUnfinished: " + wrong);
        }
      }
    } catch (RuntimeException e) {
      problems.add("listUnfinished failed: " + e);
    }
    if (!listed.equals(unfinished)) {
      problems.add("listUnfinished returned " + listed.size() + " keys, expected the "
          + unfinished.size() + " unfinished ones");
    }
    return problems;
  }
}
