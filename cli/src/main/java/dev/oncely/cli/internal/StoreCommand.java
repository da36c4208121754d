package dev.oncely.cli.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.server.internal.InboxRecords;
import dev.oncely.server.internal.ReceiptRecords;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A command that opens the store, works on it and closes it, releasing the owner lock. */
abstract class StoreCommand implements Callable<Integer> {
  final CliContext context;

  @Mixin
  StoreMixin store;

  @Spec
  CommandSpec spec;

  StoreCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public final Integer call() {
    try (IntentStore opened = store.open(context)) {
      PrintWriter out = TerminalText.safe(spec.commandLine().getOut());
      try {
        return run(opened, out);
      } finally {
        out.flush();
      }
    }
  }

  /**
   * The refusal for a compare-and-set on {@code record} that was not stored: on a leasing store,
   * naming the instance that drives the record now; otherwise, the record changed meanwhile.
   */
  CliException notStored(IntentStore store, IntentRecord record, String doing) {
    return notStored(store, record.id(), doing);
  }

  /** {@link #notStored(IntentStore, IntentRecord, String)} for the record of {@code id}. */
  CliException notStored(IntentStore store, IntentId id, String doing) {
    Optional<String> lease = context.engines().liveLeaseOfAnother(store, id);
    if (lease.isPresent()) {
      return CliException.refused(id + " is being driven by " + lease.get()
          + "; nothing was written. Its drive ends with a stored state (or its lease runs out if"
          + " that instance died): run `show` again and decide on that state.");
    }
    return CliException.refused(id + " changed while it was being " + doing
        + "; nothing was written. Run `show` again and decide on the new state.");
  }

  /**
   * Refuses to {@code doing} a server receipt with an intent command: a receipt's states mean
   * other things (a REJECTED record is a RELEASED receipt, whose next repeat runs the handler).
   */
  static void refuseReceipt(IntentRecord record, String doing) {
    if (ReceiptRecords.isReceipt(record)) {
      throw CliException.refused(record.id() + " is a server receipt, not a client's intent;"
          + " nothing was written. `oncely receipts resolve` answers or releases a pending one"
          + " (an intent's verdict would " + doing + ").");
    }
  }

  /**
   * Refuses to {@code doing} an inbox message with an intent command: a message's states mean
   * other things (a DEAD message is NEEDS_RECONCILIATION as a record, and resolving it would end it
   * without its handler ever running).
   */
  static void refuseInboxMessage(IntentRecord record, String doing) {
    if (InboxRecords.isMessage(record)) {
      throw CliException.refused(record.id() + " is an inbox message, not a client's intent;"
          + " nothing was written. `oncely inbox replay` queues a dead one again (an intent's"
          + " verdict would " + doing + ").");
    }
  }

  /**
   * What kind of record {@code record} is, and the command that reads it, for refusals: {@code a
   * server receipt (`oncely receipts show` reads it)}.
   */
  static String kindOf(IntentRecord record) {
    if (InboxRecords.isMessage(record)) {
      return "an inbox message (`oncely inbox show` reads it)";
    }
    if (ReceiptRecords.isReceipt(record)) {
      return "a server receipt (`oncely receipts show` reads it)";
    }
    return "a client's intent (`oncely show` reads it)";
  }

  /** Does the command's work; returns the exit code (normally {@link ExitCode#OK}). */
  abstract int run(IntentStore store, PrintWriter out);
}
