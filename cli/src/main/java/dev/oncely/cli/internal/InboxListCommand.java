package dev.oncely.cli.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import dev.oncely.server.internal.InboxRecords;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code inbox list}: every message not yet handled (queued, processing, dead), oldest first, with
 * its source, short id hash, type, state, failures, when it was received, when it runs next, and
 * the type of its last failure.
 */
@Command(name = "list", mixinStandardHelpOptions = true,
    description = "List inbox messages not yet handled (QUEUED, PROCESSING, DEAD), oldest first.")
public final class InboxListCommand extends StoreCommand {
  @Option(names = "--state", paramLabel = "STATE", split = ",",
      description = "Only these states: queued, processing, dead.")
  Set<InboxState> states;

  @Option(names = "--source", paramLabel = "SOURCE", description = "Only this source.")
  String source;

  @Option(names = "--json", description = "Print JSON instead of a table.")
  boolean json;

  /** The command, reading time and environment from {@code context}. */
  public InboxListCommand(CliContext context) {
    super(context);
  }

  @Override
  int run(IntentStore store, PrintWriter out) {
    if (states != null && states.contains(InboxState.HANDLED)) {
      throw CliException.usage("--state takes queued, processing or dead: handled messages are"
          + " not listed (`inbox show` reads one)");
    }
    Instant now = context.clock().instant();
    List<InboxMessage> messages = new ArrayList<>();
    int others = 0;
    for (IntentRecord r : store.listUnfinished()) {
      if (!InboxRecords.isMessage(r)) {
        others++;
        continue;
      }
      InboxMessage m = InboxRecords.fromRecord(r);
      if ((states == null || states.contains(m.state()))
          && (source == null || m.source().equals(source))) {
        messages.add(m);
      }
    }
    if (json) {
      ArrayNode array = Json.MAPPER.createArrayNode();
      messages.forEach(m -> array.add(new InboxView(m, now, false).summaryJson()));
      Json.print(out, array);
      return ExitCode.OK;
    }
    if (messages.isEmpty()) {
      out.println("no unfinished inbox messages" + (states == null ? "" : " in " + states)
          + (source == null ? "" : " of " + source));
    } else {
      Table table = new Table("SOURCE", "ID HASH", "TYPE", "STATE", "FAILURES", "RECEIVED", "DUE",
          "LAST FAILURE");
      long queued = 0;
      long processing = 0;
      long ranOut = 0;
      for (InboxMessage m : messages) {
        InboxView view = new InboxView(m, now, false);
        table.row(m.source(), m.id().safeKey(), m.type(), m.state().name(),
            Integer.toString(m.failures()), view.received(), view.due(), view.lastFailureType());
        queued += m.state() == InboxState.QUEUED ? 1 : 0;
        processing += m.state() == InboxState.PROCESSING ? 1 : 0;
        ranOut += view.leaseRanOut() ? 1 : 0;
      }
      table.print(out);
      out.println(messages.size() + " unfinished inbox messages: " + queued + " queued, "
          + processing + " processing (" + ranOut + " with a lease that ran out), "
          + (messages.size() - queued - processing) + " dead");
    }
    if (others > 0) {
      out.println("(the store also holds " + others + " unfinished intents or receipts:"
          + " `oncely list` and `oncely receipts list` show them; give the inbox a store of its"
          + " own)");
    }
    return ExitCode.OK;
  }
}
