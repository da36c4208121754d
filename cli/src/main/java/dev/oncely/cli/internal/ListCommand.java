package dev.oncely.cli.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.server.internal.InboxRecords;
import dev.oncely.server.internal.ReceiptRecords;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code list}: every unfinished record, oldest first, with age, state, reason and key hash.
 * Inbox messages are left out and counted: their record states mean other things ({@code inbox
 * list} shows them).
 */
@Command(name = "list", mixinStandardHelpOptions = true,
    description = "List unfinished intents (NEW, IN_FLIGHT, PENDING, NEEDS_RECONCILIATION), oldest first.")
public final class ListCommand extends StoreCommand {
  @Option(names = "--state", paramLabel = "STATE", split = ",",
      description = "Only these states, e.g. NEEDS_RECONCILIATION,PENDING.")
  Set<IntentState> states;

  @Option(names = "--json", description = "Print JSON instead of a table.")
  boolean json;

  /** The command, reading time and environment from {@code context}. */
  public ListCommand(CliContext context) {
    super(context);
  }

  @Override
  int run(IntentStore store, PrintWriter out) {
    Instant now = context.clock().instant();
    List<IntentRecord> unfinished = store.listUnfinished();
    long messages = unfinished.stream().filter(InboxRecords::isMessage).count();
    List<IntentRecord> records = unfinished.stream()
        .filter(r -> !InboxRecords.isMessage(r))
        .filter(r -> states == null || states.contains(r.state()))
        .collect(Collectors.toList());
    if (json) {
      ArrayNode array = Json.MAPPER.createArrayNode();
      records.forEach(r -> array.add(new RecordView(r, now, false).summaryJson()));
      Json.print(out, array);
      return ExitCode.OK;
    }
    if (records.isEmpty()) {
      out.println("no unfinished intents" + (states == null ? "" : " in " + states));
      printMessagesLeftOut(out, messages);
      return ExitCode.OK;
    }
    Table table = new Table("KEY HASH", "STATE", "AGE", "ATTEMPTS", "NEXT", "SCOPE/OPERATION",
        "BUSINESS ID", "REASON");
    long reconcile = 0;
    for (IntentRecord r : records) {
      RecordView view = new RecordView(r, now, false);
      table.row(r.id().safeKey(), r.state().name(), view.age(), Integer.toString(r.attempts()),
          view.next(), view.scopeAndOperation(), r.businessId(), r.reason());
      if (r.state() == IntentState.NEEDS_RECONCILIATION) {
        reconcile++;
      }
    }
    table.print(out);
    out.println(records.size() + " unfinished, " + reconcile + " need reconciliation");
    long receipts = records.stream().filter(ReceiptRecords::isReceipt).count();
    if (receipts > 0) {
      out.println("(" + receipts + " of them are server receipts: `oncely receipts list` shows"
          + " their leases and references)");
    }
    printMessagesLeftOut(out, messages);
    return ExitCode.OK;
  }

  private static void printMessagesLeftOut(PrintWriter out, long messages) {
    if (messages > 0) {
      out.println("(the store also holds " + messages + " unfinished inbox messages, not listed"
          + " here: `oncely inbox list` shows them)");
    }
  }
}
