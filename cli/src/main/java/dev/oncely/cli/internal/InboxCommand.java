package dev.oncely.cli.internal;

import picocli.CommandLine.Command;

/**
 * {@code inbox}: the server half's inbox messages (webhook events, queue deliveries), in their own
 * words. A message is kept as a record of the same stores, but its states and an operator's one
 * choice differ from an intent's and a receipt's: a dead message is {@code NEEDS_RECONCILIATION}
 * as a record, and resolving it as an intent would end it without its handler ever running, so the
 * intent and receipt commands refuse messages and these commands handle them.
 */
@Command(name = "inbox", mixinStandardHelpOptions = true,
    description = "The server half's inbox (webhook events, queue deliveries): list, show,"
        + " replay.",
    subcommands = {InboxListCommand.class, InboxShowCommand.class, InboxReplayCommand.class})
public final class InboxCommand {
  /** The command group; picocli runs its subcommands. */
  public InboxCommand() {}
}
