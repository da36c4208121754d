package dev.oncely.examples.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.TreeMap;

/**
 * The result of a run or resume, printed as the last line of stdout. {@code completed},
 * {@code rejected}, {@code conflicts}, {@code pending} and {@code needsReconciliation} count the
 * run's intents by stored outcome (so a second run reports the first run's outcomes); {@code
 * attempts}, {@code retries} (and {@code retriesByCause}), {@code status202} and {@code status409}
 * count what this process sent and received; {@code errors} counts intents this process could not
 * drive (store failures).
 */
public record LoadReport(int intents, long completed, long rejected, long pending,
    long conflicts, long needsReconciliation, long errors, long attempts, long retries,
    long status202, long status409, long elapsedMs, Map<String, Long> retriesByCause) {

  /** Copies the cause counts, sorted. */
  public LoadReport {
    retriesByCause = Map.copyOf(retriesByCause);
  }

  /** Whether every intent reached a final outcome (completed, rejected or key conflict). */
  public boolean allFinal() {
    return completed + rejected + conflicts == intents;
  }

  /**
   * One JSON object, fields in the documented order: {@code intents, completed, rejected, pending,
   * conflicts, attempts, retries, status202, status409, elapsedMs}, then {@code
   * needsReconciliation, errors, retriesByCause}.
   */
  public String toJson() {
    ObjectNode n = new ObjectMapper().createObjectNode();
    n.put("intents", intents);
    n.put("completed", completed);
    n.put("rejected", rejected);
    n.put("pending", pending);
    n.put("conflicts", conflicts);
    n.put("attempts", attempts);
    n.put("retries", retries);
    n.put("status202", status202);
    n.put("status409", status409);
    n.put("elapsedMs", elapsedMs);
    n.put("needsReconciliation", needsReconciliation);
    n.put("errors", errors);
    ObjectNode causes = n.putObject("retriesByCause");
    new TreeMap<>(retriesByCause).forEach(causes::put);
    return n.toString();
  }
}
