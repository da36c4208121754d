package dev.oncely.cli.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoredResponse;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptState;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.internal.KeptAnswers;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code receipts resolve}: an operator settles one PENDING receipt, after finding out what its
 * effect did, in one compare-and-set through {@link ReceiptStore#replace} plus an appended note:
 * <ul>
 *   <li>{@code --answer STATUS --answer-body FILE}: the effect happened; the receipt becomes
 *       COMPLETED with this answer (a JSON body, its bytes as given) and every repeat gets it
 *       replayed. Only an answer the server would store is accepted (2xx, 3xx, a business 4xx);
 *   <li>{@code --release}: no effect exists; the receipt becomes RELEASED and the next repeat runs
 *       the handler. Refused when the handler recorded its effects as committed.
 * </ul>
 * Anything but a PENDING receipt is refused: a PROCESSING one belongs to its handler (or, once its
 * lease ran out, to the repeat that takes it over), a finished one is never rewritten.
 */
@Command(name = "resolve", mixinStandardHelpOptions = true,
    description = "Settle one PENDING receipt: store the answer every repeat gets (--answer), or"
        + " release it so the next repeat runs the handler (--release). With an operator note.")
public final class ReceiptResolveCommand extends StoreCommand {
  /** The largest answer body the CLI stores: as large as an endpoint's default request limit. */
  static final long MAX_ANSWER_BYTES = 1024 * 1024;
  /** Default retention of a settled receipt: an endpoint's default key retention. */
  static final String DEFAULT_RETENTION = "P1D";

  private static final ObjectReader JSON_DOCUMENT = Json.MAPPER.reader()
      .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  @Mixin
  ReceiptRef ref;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Decision decision;

  /** Exactly one decision: an answer, or a release. */
  static final class Decision {
    @ArgGroup(exclusive = false)
    GivenAnswer answer;

    @Option(names = "--release", required = true,
        description = "No effect exists: the next repeat runs the handler.")
    boolean release;
  }

  /** The answer to store. */
  static final class GivenAnswer {
    @Option(names = "--answer", required = true, paramLabel = "STATUS",
        description = "The status every repeat gets (2xx, 3xx or a business 4xx).")
    int status;

    @Option(names = "--answer-body", required = true, paramLabel = "FILE",
        description = "File holding the answer's JSON body, stored byte for byte.")
    Path body;

    @Option(names = "--answer-type", paramLabel = "TYPE", defaultValue = "application/json",
        description = "The answer's Content-Type, a JSON media type; default: ${DEFAULT-VALUE}.")
    String type;
  }

  @Option(names = "--note", required = true, paramLabel = "TEXT",
      description = "Why: what you checked (kept in the receipt). No secrets.")
  String note;

  @Option(names = "--author", paramLabel = "NAME", defaultValue = "${sys:user.name}",
      description = "Who resolves; default: ${DEFAULT-VALUE}.")
  String author;

  @Option(names = "--retention", paramLabel = "DURATION", defaultValue = DEFAULT_RETENTION,
      description = "Keep the settled receipt at least this long before purging (ISO-8601);"
          + " default: ${DEFAULT-VALUE}, an endpoint's default key retention.")
  Duration retention;

  @Option(names = "--json", description = "Print the resolved receipt as JSON.")
  boolean json;

  /** The command, reading time and environment from {@code context}. */
  public ReceiptResolveCommand(CliContext context) {
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
    if (retention.isNegative() || retention.isZero()
        || retention.compareTo(ResolveCommand.MAX_FINISHED_RETENTION) > 0) {
      throw CliException.usage("--retention must be positive and at most "
          + ResolveCommand.MAX_FINISHED_RETENTION.toDays() + " days, was " + retention);
    }
    StoredResponse answer = decision.answer == null ? null : answer(decision.answer);
    Receipt current = ref.find(store);
    refuseUnlessPending(current, answer == null);
    Instant now = context.clock().instant();
    Instant keepUntil = now.plus(retention);
    Receipt.Builder next = current.toBuilder()
        .revision(current.revision() + 1)
        .lease(null, current.leaseOwner())
        .updatedAt(now)
        .expiresAt(keepUntil.isAfter(current.expiresAt()) ? keepUntil : current.expiresAt());
    String by = author.strip();
    if (answer != null) {
      next.state(ReceiptState.COMPLETED).answer(answer)
          .reason("answered " + answer.status() + " by operator " + by)
          .addNote(new IntentRecord.Note(now, by, "answered " + answer.status() + ": "
              + note.strip()));
    } else {
      next.state(ReceiptState.RELEASED)
          .reason("released by operator " + by + ": the next repeat runs the handler")
          .addNote(new IntentRecord.Note(now, by, "released: " + note.strip()));
    }
    Receipt resolved = next.build();
    if (!ReceiptStore.on(store).replace(current, resolved)) {
      throw notStored(store, current.id(), "resolved");
    }
    if (json) {
      Json.print(out, new ReceiptView(resolved, now, false).detailJson());
    } else if (answer != null) {
      out.println(resolved.id() + ": PENDING -> COMPLETED with answer " + answer.status()
          + "; every repeat gets it (revision " + resolved.revision() + ")");
    } else {
      out.println(resolved.id() + ": PENDING -> RELEASED; the next repeat runs the handler"
          + " (revision " + resolved.revision() + ")");
    }
    return ExitCode.OK;
  }

  private static void refuseUnlessPending(Receipt receipt, boolean release) {
    switch (receipt.state()) {
      case PENDING -> {
        if (release && receipt.effectsCommitted()) {
          throw CliException.refused(receipt.id() + " records that its handler's effects are"
              + " committed (reference " + receipt.reference() + "): running it again would"
              + " repeat them. Answer it with --answer instead.");
        }
      }
      case PROCESSING -> throw CliException.refused(receipt.id() + " is PROCESSING: a handler"
          + " holds it under a lease (" + receipt.leaseOwner() + ", until "
          + receipt.leaseUntil() + "). Only a PENDING receipt is resolved by hand; a live handler"
          + " settles its own, and once its lease runs out the next repeat takes it over (as"
          + " PENDING unless the endpoint is safe to re-run).");
      case COMPLETED -> throw CliException.refused(receipt.id() + " is already COMPLETED: every"
          + " repeat gets its stored answer; a finished receipt is never rewritten");
      case RELEASED -> throw CliException.refused(receipt.id() + " is already RELEASED: the next"
          + " repeat runs the handler; a finished receipt is never rewritten");
    }
  }

  /** The answer the options give, checked before the store is read. */
  private static StoredResponse answer(GivenAnswer given) {
    if (given.status < 200 || given.status > 599 || !KeptAnswers.isKept(given.status)) {
      throw CliException.usage("--answer " + given.status + " is not an answer the server stores"
          + " (2xx, 3xx, or 4xx but 401, 403, 407, 408, 425 and 429); if no effect exists,"
          + " --release lets the next repeat run the handler");
    }
    String type = given.type.strip();
    String base = type.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    if (!base.equals("application/json") && !base.endsWith("+json")) {
      throw CliException.usage("--answer-type must be a JSON media type (application/json or"
          + " */*+json), was " + type);
    }
    byte[] body = read(given.body);
    try {
      var document = JSON_DOCUMENT.readTree(body);
      if (document == null || document.isMissingNode()) {
        throw CliException.usage("--answer-body " + given.body + " is empty; it must hold one"
            + " JSON document");
      }
    } catch (JsonProcessingException e) {
      throw CliException.usage("--answer-body " + given.body + " is not one JSON document: "
          + e.getOriginalMessage());
    } catch (IOException e) {
      throw CliException.failure("cannot read --answer-body " + given.body + ": "
          + e.getMessage(), e);
    }
    return StoredResponse.of(given.status, Map.of("Content-Type", List.of(type)), body);
  }

  private static byte[] read(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] body = in.readNBytes((int) MAX_ANSWER_BYTES + 1);
      if (body.length > MAX_ANSWER_BYTES) {
        throw CliException.usage("--answer-body " + file + " is larger than "
            + MAX_ANSWER_BYTES + " bytes");
      }
      return body;
    } catch (IOException e) {
      throw CliException.failure("cannot read --answer-body " + file + ": " + e.getMessage(), e);
    }
  }
}
