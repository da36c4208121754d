package dev.oncely.cli.internal;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.server.internal.InboxRecords;
import dev.oncely.server.internal.ReceiptRecords;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code show}: one record with every field; headers, bodies and the key redacted by default. */
@Command(name = "show", mixinStandardHelpOptions = true,
    description = "Show one intent record. Header values, bodies and the key are redacted unless --reveal.")
public final class ShowCommand extends StoreCommand {
  @Mixin
  RecordRef ref;

  @Option(names = "--reveal",
      description = "Print the key, header values and bodies (decrypted with the store key).")
  boolean reveal;

  @Option(names = "--json", description = "Print JSON instead of text.")
  boolean json;

  /** The command, reading time and environment from {@code context}. */
  public ShowCommand(CliContext context) {
    super(context);
  }

  @Override
  int run(IntentStore store, PrintWriter out) {
    IntentRecord record = ref.find(store);
    if (InboxRecords.isMessage(record)) {
      throw CliException.failure(record.id() + " is " + kindOf(record) + ", not a client's"
          + " intent");
    }
    RecordView view = new RecordView(record, context.clock().instant(), reveal);
    if (json) {
      Json.print(out, view.detailJson());
    } else {
      view.printDetail(out);
      if (ReceiptRecords.isReceipt(record)) {
        out.println("(a server receipt: `oncely receipts show` reads its lease, reference and"
            + " answer)");
      }
    }
    return ExitCode.OK;
  }
}
