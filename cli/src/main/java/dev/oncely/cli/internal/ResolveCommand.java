package dev.oncely.cli.internal;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoredResponse;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code resolve}: an operator's verdict on an unfinished record, written as one compare-and-set
 * to {@code COMPLETED} or {@code REJECTED}. Finished records are never rewritten. The record must
 * end with an answer the app can read ({@code IntentOutcome.Completed} needs a response): the last
 * response is kept when it fits the verdict (2xx for completed, 4xx or 5xx for rejected), otherwise
 * an evidence response is stored, marked with {@value #RESOLUTION_HEADER}. A record that was
 * never sent cannot be resolved as completed.
 */
@Command(name = "resolve", mixinStandardHelpOptions = true,
    description = "Resolve one unfinished intent as completed or rejected, with an operator note.")
public final class ResolveCommand extends StoreCommand {
  /** Header on an evidence response the CLI made up; its value is the verdict. */
  public static final String RESOLUTION_HEADER = "Oncely-Operator-Resolution";
  /** Default retention of a resolved record: the client's {@code DEFAULT_FINISHED_RETENTION}. */
  public static final String DEFAULT_FINISHED_RETENTION = "P7D";

  /** The two verdicts an operator can give. */
  enum Verdict {
    completed(IntentState.COMPLETED, 200), rejected(IntentState.REJECTED, 400);

    final IntentState state;
    final int defaultStatus;

    Verdict(IntentState state, int defaultStatus) {
      this.state = state;
      this.defaultStatus = defaultStatus;
    }

    boolean fits(int status) {
      return this == completed ? status >= 200 && status < 300 : status >= 400 && status < 600;
    }
  }

  /** The longest retention a resolution may ask for: beyond it the expiry time overflows. */
  static final Duration MAX_FINISHED_RETENTION = Duration.ofDays(36_500);

  @Mixin
  RecordRef ref;

  @Option(names = "--as", required = true, paramLabel = "VERDICT",
      description = "completed (the effect happened) or rejected (it did not and will not).")
  Verdict verdict;

  @Option(names = "--note", required = true, paramLabel = "TEXT",
      description = "Why: what you checked (kept in the record). No secrets.")
  String note;

  @Option(names = "--author", paramLabel = "NAME", defaultValue = "${sys:user.name}",
      description = "Who resolves; default: ${DEFAULT-VALUE}.")
  String author;

  @Option(names = "--evidence-status", paramLabel = "STATUS",
      description = "Status of the evidence response stored when the last response does not fit"
          + " the verdict; default 200 for completed, 400 for rejected.")
  Integer evidenceStatus;

  @Option(names = "--finished-retention", paramLabel = "DURATION", defaultValue = DEFAULT_FINISHED_RETENTION,
      description = "How long the resolved record is kept before purging (ISO-8601); default: ${DEFAULT-VALUE}.")
  Duration finishedRetention;

  @Option(names = "--json", description = "Print the resolved record as JSON.")
  boolean json;

  /** The command, reading time and environment from {@code context}. */
  public ResolveCommand(CliContext context) {
    super(context);
  }

  @Override
  int run(IntentStore store, PrintWriter out) {
    if (note.isBlank()) {
      throw CliException.usage("--note must say what was checked");
    }
    if (author == null || author.isBlank()) {
      throw CliException.usage("--author must not be blank");
    }
    if (evidenceStatus != null && !verdict.fits(evidenceStatus)) {
      throw CliException.usage("--evidence-status " + evidenceStatus + " does not fit --as "
          + verdict + " (completed: 2xx, rejected: 4xx or 5xx)");
    }
    if (finishedRetention.isNegative() || finishedRetention.isZero()
        || finishedRetention.compareTo(MAX_FINISHED_RETENTION) > 0) {
      throw CliException.usage("--finished-retention must be positive and at most "
          + MAX_FINISHED_RETENTION.toDays() + " days, was " + finishedRetention);
    }
    IntentRecord record = ref.find(store);
    refuseInboxMessage(record, verdict == Verdict.rejected
        ? "end it without its handler ever running" : "mark it handled without a run");
    refuseReceipt(record, verdict == Verdict.rejected
        ? "release it: its next repeat would run the handler again"
        : "store an answer the server never gave");
    if (record.state().isTerminal()) {
      throw CliException.refused(record.id() + " is already " + record.state()
          + "; a finished record is never rewritten");
    }
    if (verdict == Verdict.completed && !RetryCommand.RetryRules.maybeSent(record)) {
      throw CliException.refused(record.id() + " was never sent, so it cannot have had an effect;"
          + " resolve it as rejected to cancel it");
    }
    Instant now = context.clock().instant();
    Instant keepUntil = now.plus(finishedRetention);
    IntentRecord resolved = record.successor()
        .addNote(new IntentRecord.Note(now, author.strip(),
            "resolved as " + verdict.state + ": " + note.strip()))
        .state(verdict.state)
        .lastResponse(evidence(record))
        .replayed(false)
        .reason("resolved as " + verdict.state + " by operator " + author.strip())
        .nextAttemptAt(null)
        .updatedAt(now)
        .expiresAt(keepUntil.isAfter(record.expiresAt()) ? keepUntil : record.expiresAt())
        .build();
    if (!store.compareAndSet(record, resolved)) {
      throw notStored(store, record, "resolved");
    }
    if (json) {
      Json.print(out, new RecordView(resolved, now, false).detailJson());
    } else {
      out.println(resolved.id() + ": " + record.state() + " -> " + resolved.state()
          + " (revision " + resolved.revision() + ")");
    }
    return ExitCode.OK;
  }

  private StoredResponse evidence(IntentRecord record) {
    StoredResponse last = record.lastResponse();
    if (evidenceStatus == null && last != null && verdict.fits(last.status())) {
      return last;
    }
    int status = evidenceStatus != null ? evidenceStatus : verdict.defaultStatus;
    return StoredResponse.of(status,
        Map.of(RESOLUTION_HEADER, List.of(verdict.name().toLowerCase(Locale.ROOT))), new byte[0]);
  }
}
