package dev.oncely.examples.demo;

import dev.oncely.examples.server.FaultKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Renders the demo's comparison of clients as a plain-text table, one column per client, one row
 * per measure: intents, completed, business effects on the server, duplicates, lost, attempts,
 * retries by cause, {@code 202} polls, {@code 409}s, the SIGKILL and wall time.
 */
public final class ResultTable {
  private static final int LABEL_WIDTH = 38;
  private static final int COLUMN_WIDTH = 22;

  private ResultTable() {}

  /** The table for {@code runs}, in the given column order, with a line end after each row. */
  public static String render(List<RunSummary> runs) {
    List<String> rows = new ArrayList<>();
    rows.add(row("", runs, RunSummary::client));
    rows.add("-".repeat(LABEL_WIDTH + COLUMN_WIDTH * runs.size()));
    rows.add(row("intents", runs, r -> num(r.intents())));
    rows.add(row("completed (client's view)", runs, r -> num(r.completed())
        + (r.pending() > 0 ? " (+" + r.pending() + " unknown)" : "")));
    rows.add(row("business effects on the server", runs, r -> num(r.effects())));
    rows.add(row("duplicate charges", runs, r -> num(r.duplicates())));
    rows.add(row("lost intents (no payment)", runs, r -> num(r.lost())));
    rows.add(row("attempts (requests to the server)", runs, r -> num(r.attempts())));
    rows.add(row("retries (POSTs beyond one/intent)", runs, r -> num(r.retries())));
    rows.add(row("  after a dropped answer", runs, r -> num(r.faults(FaultKind.DROP))));
    rows.add(row("  after a stalled answer (timeout)", runs, r -> num(r.faults(FaultKind.STALL))));
    rows.add(row("  after a refused connection", runs, r -> num(r.faults(FaultKind.REFUSE))));
    rows.add(row("  after a 503 + Retry-After", runs, r -> num(r.faults(FaultKind.BURST_503))));
    rows.add(row("  after a 409 (same key in flight)", runs, r -> num(r.server().status409())));
    rows.add(row("  after the restart or a slow answer", runs, r -> num(r.otherRetries())));
    rows.add(row("202 accepted / status polls", runs,
        r -> num(r.server().status202()) + " / " + num(r.server().polls())));
    rows.add(row("409 in progress", runs, r -> num(r.server().status409())));
    rows.add(row("client JVM SIGKILLed", runs, r -> r.killedAt() < 0 ? "no"
        : "at " + num(r.killedAt()) + "/" + num(r.intents()) + ", resumed"));
    rows.add(row("wall time", runs, r -> String.format(Locale.ROOT, "%.1f s",
        r.wall().toMillis() / 1000.0)));
    StringBuilder sb = new StringBuilder();
    for (String r : rows) {
      sb.append(r).append(System.lineSeparator());
    }
    return sb.toString();
  }

  private static String row(String label, List<RunSummary> runs,
      Function<RunSummary, String> cell) {
    StringBuilder sb = new StringBuilder(String.format("%-" + LABEL_WIDTH + "s", label));
    for (RunSummary r : runs) {
      sb.append(String.format("%" + COLUMN_WIDTH + "s", cell.apply(r)));
    }
    return sb.toString().stripTrailing();
  }

  private static String num(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
