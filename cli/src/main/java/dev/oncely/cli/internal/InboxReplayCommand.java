package dev.oncely.cli.internal;

import dev.oncely.client.IntentStore;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxMessage;
import java.io.PrintWriter;
import java.util.NoSuchElementException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code inbox replay}: an operator queues one dead (or queued) message again, due now, with its
 * failure count reset and a note appended, through {@link Inbox#replay}: one compare-and-set on
 * the message's revision, so an instance that changed it meanwhile wins and nothing is written.
 * The app's inbox workers run it (a store file's app at its next start; on PostgreSQL any running
 * instance at its next poll).
 *
 * <p>Refused: a handled message (its handler finished: it is never run again), and a processing
 * one (a handler holds it; once its lease runs out, a worker takes it over by itself).
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
    description = "Queue one DEAD (or QUEUED) inbox message again, due now, its failures reset,"
        + " with an operator note. A HANDLED message is never run again.")
public final class InboxReplayCommand extends StoreCommand {
  @Mixin
  InboxRef ref;

  @Option(names = "--note", required = true, paramLabel = "TEXT",
      description = "Why: what was fixed (kept in the message). No secrets.")
  String note;

  @Option(names = "--author", paramLabel = "NAME", defaultValue = "${sys:user.name}",
      description = "Who replays; default: ${DEFAULT-VALUE}.")
  String author;

  @Option(names = "--json", description = "Print the queued message as JSON.")
  boolean json;

  /** The command, reading time and environment from {@code context}. */
  public InboxReplayCommand(CliContext context) {
    super(context);
  }

  @Override
  int run(IntentStore store, PrintWriter out) {
    if (note.isBlank()) {
      throw CliException.usage("--note must say what was fixed");
    }
    if (author == null || author.isBlank()) {
      throw CliException.usage("--author must not be blank");
    }
    InboxMessage current = ref.find(store);
    refuseUnlessReplayable(current);
    InboxMessage queued;
    // An inbox without workers: replay() is its one compare-and-set; nothing else runs.
    try (Inbox inbox = Inbox.builder(store).workers(0).clock(context.clock())
        .instance("oncely-cli").build()) {
      queued = inbox.replay(current.source(), current.messageId(), author.strip(),
          "replayed: " + note.strip());
    } catch (IllegalStateException e) {
      throw notStored(store, current.id(), "replayed");
    } catch (NoSuchElementException e) {
      throw CliException.refused(current.id() + " was purged while it was being replayed;"
          + " nothing was written");
    }
    if (json) {
      Json.print(out, new InboxView(queued, context.clock().instant(), false).detailJson());
    } else {
      out.println(queued.id() + ": " + current.state() + " -> " + queued.state()
          + ", due now, failures reset (revision " + queued.revision() + "); the app's inbox"
          + " workers run it");
    }
    return ExitCode.OK;
  }

  private static void refuseUnlessReplayable(InboxMessage m) {
    switch (m.state()) {
      case HANDLED -> throw CliException.refused(m.id() + " is HANDLED: its handler finished"
          + " (at " + Redaction.seconds(m.updatedAt()) + "), and a handled message is never run"
          + " again; nothing was written. If its effect must happen again, that is a new"
          + " business action, not a replay.");
      case PROCESSING -> throw CliException.refused(m.id() + " is PROCESSING: a handler holds"
          + " it under a lease (" + m.leaseOwner() + ", until "
          + Redaction.seconds(m.dueAt()) + "); nothing was written. Once the lease runs out a"
          + " worker takes it over by itself (counting a failure); replay only a DEAD or QUEUED"
          + " message.");
      case QUEUED, DEAD -> { }
    }
  }
}
