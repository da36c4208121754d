package dev.oncely.cli.internal;

import dev.oncely.cli.OncelyCli;
import dev.oncely.client.spi.IntentStore;
import java.io.PrintWriter;
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
      return run(opened, spec.commandLine().getOut());
    }
  }

  /** Does the command's work; returns the exit code (normally {@link OncelyCli#EXIT_OK}). */
  abstract int run(IntentStore store, PrintWriter out);
}
