package dev.oncely.cli.internal;

import dev.oncely.cli.LeaseView;
import dev.oncely.cli.OncelyCli;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
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
  static CliException notStored(IntentStore store, IntentRecord record, String doing) {
    Optional<String> lease = store instanceof LeaseView leases
        ? leases.liveLeaseOfAnother(record.id()) : Optional.empty();
    if (lease.isPresent()) {
      return CliException.refused(record.id() + " is being driven by " + lease.get()
          + "; nothing was written. Its drive ends with a stored state (or its lease runs out if"
          + " that instance died): run `show` again and decide on that state.");
    }
    return CliException.refused(record.id() + " changed while it was being " + doing
        + "; nothing was written. Run `show` again and decide on the new state.");
  }

  /** Does the command's work; returns the exit code (normally {@link OncelyCli#EXIT_OK}). */
  abstract int run(IntentStore store, PrintWriter out);
}
