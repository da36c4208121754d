package dev.oncely.cli.internal;

import dev.oncely.client.IntentStore;
import dev.oncely.server.inbox.InboxMessage;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code inbox show}: one message with every field; its id, payload and the last failure's message
 * redacted by default (the payload as its length and fingerprint).
 */
@Command(name = "show", mixinStandardHelpOptions = true,
    description = "Show one inbox message. The message id, the payload (its length and"
        + " fingerprint are shown) and the last failure's message are redacted unless --reveal.")
public final class InboxShowCommand extends StoreCommand {
  @Mixin
  InboxRef ref;

  @Option(names = "--reveal",
      description = "Print the message id, the payload and the last failure's message (decrypted"
          + " with the store key).")
  boolean reveal;

  @Option(names = "--json", description = "Print JSON instead of text.")
  boolean json;

  /** The command, reading time and environment from {@code context}. */
  public InboxShowCommand(CliContext context) {
    super(context);
  }

  @Override
  int run(IntentStore store, PrintWriter out) {
    InboxMessage message = ref.find(store);
    InboxView view = new InboxView(message, context.clock().instant(), reveal);
    if (json) {
      Json.print(out, view.detailJson());
    } else {
      view.printDetail(out);
    }
    return ExitCode.OK;
  }
}
