package dev.oncely.cli.internal;

import dev.oncely.client.HeaderProvider;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.dialect.Dialect;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code retry}: by default makes one unfinished record due now, so the app's next
 * {@code resumePending()} drives it at once, with the app's own dialect, credentials and
 * reconciler, instead of waiting for its stored backoff or {@code Retry-After}. This is the safe
 * default: nothing is sent by the CLI. With {@code --drive} the CLI drives the record itself, now,
 * through an {@link IdempotentClient} on the same store (the owner lock guarantees the app is not
 * driving it at the same time), sending the stored key wire form and body bytes.
 *
 * <p>Both are refused, before anything is written or sent, for a record that needs reconciliation
 * and for one that may have reached the server and is past the server's key retention: those must
 * never be resent blindly (check the server, then {@code resolve}). The driver re-checks the stored
 * retention itself, so a wrong {@code --dialect} cannot lift that rule.
 */
@Command(name = "retry", mixinStandardHelpOptions = true,
    description = "Make one unfinished intent due now (the app's next resumePending() drives it),"
        + " or drive it now from the CLI with --drive.")
public final class RetryCommand extends StoreCommand {
  @Mixin
  RecordRef ref;

  @Option(names = "--note", paramLabel = "TEXT", defaultValue = "retry requested",
      description = "Why (kept in the record); default: ${DEFAULT-VALUE}.")
  String note;

  @Option(names = "--author", paramLabel = "NAME", defaultValue = "${sys:user.name}",
      description = "Who asks; default: ${DEFAULT-VALUE}.")
  String author;

  @Option(names = "--drive",
      description = "Drive the intent now from the CLI instead of leaving it to the app.")
  boolean drive;

  @Option(names = "--dialect", defaultValue = "ietf", paramLabel = "NAME",
      description = "With --drive: how the server's answers are read (ietf, stripe, paypal); the key"
          + " is sent in the wire form stored in the record. Default: ${DEFAULT-VALUE}.")
  String dialect;

  @Option(names = "--header-file", paramLabel = "FILE",
      description = "With --drive: 'Name: value' lines (credentials) sent only to the record's origin.")
  Path headerFile;

  @Option(names = "--json", description = "Print the record as JSON afterwards.")
  boolean json;

  /** The command, reading time and environment from {@code context}. */
  public RetryCommand(CliContext context) {
    super(context);
  }

  @Override
  int run(IntentStore store, PrintWriter out) {
    if (author == null || author.isBlank()) {
      throw CliException.usage("--author must not be blank");
    }
    IntentRecord record = ref.find(store);
    refuseReceipt(record, "send a receipt's record as if it were a request");
    refuseInboxMessage(record, "send a message's record as if it were a request");
    Instant now = context.clock().instant();
    RetryRules.check(record, now);
    Dialect answers = drive ? DialectNames.parse("--dialect", dialect) : null;
    HeaderProvider credentials = drive && headerFile != null
        ? HeaderFile.forOrigin(headerFile, record.url()) : HeaderProvider.NONE;
    IntentRecord due = record.successor()
        .addNote(new IntentRecord.Note(now, author.strip(),
            (drive ? "driven from the CLI: " : "marked due now: ") + note.strip()))
        .nextAttemptAt(now)
        .updatedAt(now)
        .build();
    if (!store.compareAndSet(record, due)) {
      throw notStored(store, record, "marked");
    }
    if (!drive) {
      if (json) {
        Json.print(out, new RecordView(due, now, false).detailJson());
        return ExitCode.OK;
      }
      out.println(due.id() + ": " + due.state() + ", due now; the app's next resumePending()"
          + " (or a fleet's DueWorkScheduler) drives it");
      return ExitCode.OK;
    }
    IntentOutcome outcome;
    try (IdempotentClient client = IdempotentClient.builder()
        .store(store)
        .dialect(answers)
        .headerProvider(credentials)
        .listener(event -> spec.commandLine().getErr().println("event: " + event))
        .clock(context.clock())
        .build()) {
      outcome = client.resume(due.id()).join();
    }
    IntentRecord after = store.get(due.id()).orElse(due);
    if (json) {
      Json.print(out, new RecordView(after, context.clock().instant(), false).detailJson());
      return ExitCode.OK;
    }
    out.println(due.id() + ": driven, now " + outcome.state()
        + (after.reason() == null ? "" : " (" + after.reason() + ")")
        + (after.lastResponse() == null ? "" : ", last answer " + after.lastResponse().status()
            + (after.replayed() ? " (a replay: the first attempt had reached the server)" : "")));
    return ExitCode.OK;
  }

  /** When a record may be sent again at all. */
  static final class RetryRules {
    private RetryRules() {}

    static void check(IntentRecord record, Instant now) {
      if (record.state().isTerminal()) {
        throw CliException.refused(record.id() + " is " + record.state() + "; nothing to retry");
      }
      if (record.state() == IntentState.NEEDS_RECONCILIATION) {
        throw CliException.refused(record.id() + " needs reconciliation: it cannot be resent"
            + " safely. Check the server (for example by business id), then `resolve` it.");
      }
      if (maybeSent(record) && !now.isBefore(record.expiresAt())) {
        throw CliException.refused(record.id() + " may have reached the server and is past the"
            + " server's key retention (" + record.expiresAt() + "): a resend could create a"
            + " second effect. Check the server, then `resolve` it.");
      }
    }

    static boolean maybeSent(IntentRecord record) {
      return record.maybeDelivered() || (record.state() != IntentState.NEW
          && (record.attempts() > 0 || record.state() == IntentState.IN_FLIGHT));
    }
  }
}
