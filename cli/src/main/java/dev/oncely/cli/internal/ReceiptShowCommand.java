package dev.oncely.cli.internal;

import dev.oncely.client.IntentStore;
import dev.oncely.server.Receipt;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code receipts show}: one receipt with every field; the stored answer redacted by default. */
@Command(name = "show", mixinStandardHelpOptions = true,
    description = "Show one receipt. The key and the stored answer's header values and body are"
        + " redacted unless --reveal.")
public final class ReceiptShowCommand extends StoreCommand {
  @Mixin
  ReceiptRef ref;

  @Option(names = "--reveal",
      description = "Print the key and the answer's header values and body (decrypted with the"
          + " store key).")
  boolean reveal;

  @Option(names = "--json", description = "Print JSON instead of text.")
  boolean json;

  /** The command, reading time and environment from {@code context}. */
  public ReceiptShowCommand(CliContext context) {
    super(context);
  }

  @Override
  int run(IntentStore store, PrintWriter out) {
    Receipt receipt = ref.find(store);
    ReceiptView view = new ReceiptView(receipt, context.clock().instant(), reveal);
    if (json) {
      Json.print(out, view.detailJson());
    } else {
      view.printDetail(out);
    }
    return ExitCode.OK;
  }
}
