package dev.oncely.examples.cli;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code demo}, the default command: the one-command demonstration of issue 4. Not built yet:
 * it refuses to run with {@link #EXIT_USAGE} and says so.
 */
public final class DemoCommand implements Command {
  @Override
  public String summary() {
    return "idempotent client vs naive client against a faulty server (not yet available)";
  }

  @Override
  public String usage() {
    return "demo";
  }

  @Override
  public int run(List<String> args, PrintStream out, PrintStream err) {
    err.println("demo: not yet available in this build; try 'server --help' or 'help'");
    return EXIT_USAGE;
  }
}
