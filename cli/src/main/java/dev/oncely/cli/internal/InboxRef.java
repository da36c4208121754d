package dev.oncely.cli.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.internal.InboxRecords;
import java.util.function.Predicate;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * How an operator names one inbox message, and what each form finds:
 * <ul>
 *   <li>{@code SOURCE MESSAGE_ID} (the sender's event or delivery id, as its dashboard shows it):
 *       exactly that message, finished or not;
 *   <li>{@code SOURCE --id-hash HASH} (the short hash {@code inbox list} prints, or a unique prefix
 *       of at least 4 digits): the unfinished messages of the source first, then the handled ones.
 * </ul>
 * A client's intent or a server receipt is never taken for a message: it is refused, naming the
 * command that reads it.
 */
public final class InboxRef {
  @Parameters(index = "0", paramLabel = "SOURCE",
      description = "The message's source (stripe, github, a queue's name).")
  String source;

  @Parameters(index = "1", arity = "0..1", paramLabel = "MESSAGE_ID",
      description = "The sender's id of the message (a webhook's event or delivery id).")
  String messageId;

  @Option(names = "--id-hash", paramLabel = "HASH",
      description = "Instead of MESSAGE_ID: the short id hash from `inbox list` (k#0a1b2c...), or"
          + " a unique prefix of it: unfinished messages first, then handled ones.")
  String idHash;

  /**
   * Finds the one message this reference names.
   *
   * @throws CliException when the reference is malformed, matches nothing or several, or names a
   *     record that is not an inbox message
   */
  InboxMessage find(IntentStore store) {
    if ((messageId == null) == (idHash == null)) {
      throw CliException.usage("name one message: SOURCE and a MESSAGE_ID, or SOURCE and"
          + " --id-hash");
    }
    if (messageId != null) {
      IntentId id;
      try {
        id = InboxRecords.idOf(source, messageId);
      } catch (IllegalArgumentException e) {
        throw CliException.usage(e.getMessage());
      }
      return message(store.get(id).orElseThrow(() -> CliException.failure("no message " + id
          + " is stored (handled messages are purged once their retention ends)")));
    }
    String digits = RecordSearch.hashDigits(idHash);
    Predicate<IntentRecord> named = r -> InboxRecords.isMessage(r)
        && r.id().scope().equals(source) && r.id().safeKey().startsWith("k#" + digits);
    return message(RecordSearch.unique(store, named, "k#" + digits + " of " + source, "message",
        "name it by SOURCE and MESSAGE_ID"));
  }

  private static InboxMessage message(IntentRecord record) {
    if (!InboxRecords.isMessage(record)) {
      throw CliException.failure(record.id() + " is " + StoreCommand.kindOf(record)
          + ", not an inbox message");
    }
    return InboxRecords.fromRecord(record);
  }
}
