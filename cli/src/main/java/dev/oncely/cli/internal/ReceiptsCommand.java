package dev.oncely.cli.internal;

import picocli.CommandLine.Command;

/**
 * {@code receipts}: the server half's receipts, in their own words. A receipt is kept as a record
 * of the same stores, but its states and an operator's choices differ from an intent's: a client's
 * {@code resolve --as rejected} would mean RELEASED here, which runs the handler again, so the
 * intent commands refuse receipts and these commands handle them.
 */
@Command(name = "receipts", mixinStandardHelpOptions = true,
    description = "The server half's receipts (idempotent endpoints): list, show, resolve.",
    subcommands = {ReceiptListCommand.class, ReceiptShowCommand.class,
        ReceiptResolveCommand.class})
public final class ReceiptsCommand {
  /** The command group; picocli runs its subcommands. */
  public ReceiptsCommand() {}
}
