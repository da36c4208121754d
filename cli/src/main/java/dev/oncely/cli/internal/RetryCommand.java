package dev.oncely.cli.internal;

import dev.oncely.cli.OncelyCli;
import dev.oncely.client.IntentState;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.IntentStore;
import java.io.PrintWriter;
import java.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code retry}: makes one unfinished record due now, so the app's next {@code resumePending()}
 * drives it at once (with the app's own dialect, credentials and reconciler) instead of waiting
 * for its stored backoff or {@code Retry-After}. Refused for a record that may have been sent and
 * is past the server's key retention, and for one that needs reconciliation: those must never be
 * resent blindly (use {@code resolve} after checking the server).
 */
@Command(name = "retry", mixinStandardHelpOptions = true,
    description = "Make one unfinished intent due now; the app's next resumePending() drives it.")
public final class RetryCommand extends StoreCommand {
  @Mixin
  RecordRef ref;

  @Option(names = "--note", paramLabel = "TEXT", defaultValue = "retry requested",
      description = "Why (kept in the record); default: ${DEFAULT-VALUE}.")
  String note;

  @Option(names = "--author", paramLabel = "NAME", defaultValue = "${sys:user.name}",
      description = "Who asks; default: ${DEFAULT-VALUE}.")
  String author;

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
    Instant now = context.clock().instant();
    RetryRules.check(record, now);
    IntentRecord due = Notes.append(record.successor(), record, now, author.strip(),
            "marked due now: " + note.strip())
        .nextAttemptAt(now)
        .updatedAt(now)
        .build();
    if (!store.compareAndSet(record, due)) {
      throw CliException.refused(record.id() + " changed while it was being marked; nothing was"
          + " written");
    }
    out.println(due.id() + ": " + due.state() + ", due now; the app's next resumePending()"
        + " drives it");
    return OncelyCli.EXIT_OK;
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
      return record.state() != IntentState.NEW
          && (record.attempts() > 0 || record.state() == IntentState.IN_FLIGHT);
    }
  }
}
