package dev.oncely.cli.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptState;
import dev.oncely.server.internal.InboxRecords;
import dev.oncely.server.internal.ReceiptRecords;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code receipts list}: every receipt still PROCESSING or PENDING, oldest first, with its
 * operation, short key hash, state, age, lease, reference and reason.
 */
@Command(name = "list", mixinStandardHelpOptions = true,
    description = "List receipts still PROCESSING or PENDING, oldest first.")
public final class ReceiptListCommand extends StoreCommand {
  @Option(names = "--state", paramLabel = "STATE", split = ",",
      description = "Only these states: processing, pending.")
  Set<ReceiptState> states;

  @Option(names = "--operation", paramLabel = "OP", description = "Only this operation.")
  String operation;

  @Option(names = "--json", description = "Print JSON instead of a table.")
  boolean json;

  /** The command, reading time and environment from {@code context}. */
  public ReceiptListCommand(CliContext context) {
    super(context);
  }

  @Override
  int run(IntentStore store, PrintWriter out) {
    if (states != null && (states.contains(ReceiptState.COMPLETED)
        || states.contains(ReceiptState.RELEASED))) {
      throw CliException.usage("--state takes processing or pending: finished receipts are not"
          + " listed (`receipts show` reads one)");
    }
    Instant now = context.clock().instant();
    List<Receipt> receipts = new ArrayList<>();
    int intents = 0;
    int messages = 0;
    for (IntentRecord r : store.listUnfinished()) {
      if (InboxRecords.isMessage(r)) {
        messages++;
        continue;
      }
      if (!ReceiptRecords.isReceipt(r)) {
        intents++;
        continue;
      }
      Receipt receipt = ReceiptRecords.fromRecord(r);
      if ((states == null || states.contains(receipt.state()))
          && (operation == null || receipt.id().operation().equals(operation))) {
        receipts.add(receipt);
      }
    }
    if (json) {
      ArrayNode array = Json.MAPPER.createArrayNode();
      receipts.forEach(r -> array.add(new ReceiptView(r, now, false).summaryJson()));
      Json.print(out, array);
      return ExitCode.OK;
    }
    if (receipts.isEmpty()) {
      out.println("no unfinished receipts" + (states == null ? "" : " in " + states)
          + (operation == null ? "" : " of " + operation));
    } else {
      Table table = new Table("KEY HASH", "STATE", "AGE", "SCOPE/OPERATION", "LEASE OWNER",
          "LEASE", "RUNS", "REFERENCE", "REASON");
      long pending = 0;
      long ranOut = 0;
      for (Receipt r : receipts) {
        ReceiptView view = new ReceiptView(r, now, false);
        table.row(r.id().safeKey(), r.state().name(), view.age(), view.scopeAndOperation(),
            r.leaseOwner(), view.lease(), Integer.toString(r.runs()), r.reference(), r.reason());
        pending += r.state() == ReceiptState.PENDING ? 1 : 0;
        ranOut += view.leaseRanOut() ? 1 : 0;
      }
      table.print(out);
      out.println(receipts.size() + " unfinished receipts: " + (receipts.size() - pending)
          + " processing (" + ranOut + " with a lease that ran out), " + pending + " pending");
    }
    if (intents > 0) {
      out.println("(the store also holds " + intents + " unfinished client intents: `oncely list`"
          + " shows them)");
    }
    if (messages > 0) {
      out.println("(the store also holds " + messages + " unfinished inbox messages: `oncely"
          + " inbox list` shows them)");
    }
    return ExitCode.OK;
  }
}
