package dev.oncely.examples;

import dev.oncely.examples.cli.Command;
import dev.oncely.examples.cli.DemoCommand;
import dev.oncely.examples.cli.LoadCommand;
import dev.oncely.examples.cli.ServerCommand;
import dev.oncely.examples.cli.ShopCommand;
import dev.oncely.examples.cli.UsageException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Entry point of {@code java -jar oncely-examples.jar [subcommand] [options]}. With no subcommand
 * it runs {@code demo}. {@code help} lists the subcommands. Unknown subcommands and bad options
 * print a message naming them and exit {@link Command#EXIT_USAGE}.
 */
public final class Main {
  /** The default subcommand. */
  public static final String DEFAULT_COMMAND = "demo";

  /** Every subcommand by name, in the order {@code help} lists them. */
  static final Map<String, Supplier<Command>> COMMANDS;

  static {
    Map<String, Supplier<Command>> m = new LinkedHashMap<>();
    m.put("demo", DemoCommand::new);
    m.put("server", ServerCommand::new);
    m.put("shop", ShopCommand::new);
    m.put("run", LoadCommand::run);
    m.put("resume", LoadCommand::resume);
    COMMANDS = Collections.unmodifiableMap(m);
  }

  private Main() {}

  /** Runs the command line and exits the JVM with its exit code. */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the command line without exiting the JVM.
   *
   * @return the exit code: 0 success, 1 failure, 2 bad usage, 3 unfinished work
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    List<String> rest = Arrays.asList(args);
    String name = DEFAULT_COMMAND;
    if (!rest.isEmpty() && !rest.get(0).startsWith("--")) {
      name = rest.get(0);
      rest = rest.subList(1, rest.size());
    }
    if (name.equals("help") || rest.contains("--help")) {
      help(name, out);
      return Command.EXIT_OK;
    }
    Supplier<Command> factory = COMMANDS.get(name);
    if (factory == null) {
      err.println("unknown subcommand '" + name + "'; known: " + String.join(", ", COMMANDS.keySet()));
      return Command.EXIT_USAGE;
    }
    Command command = factory.get();
    try {
      return command.run(rest, out, err);
    } catch (UsageException e) {
      err.println(name + ": " + e.getMessage());
      err.println("usage: " + command.usage());
      return Command.EXIT_USAGE;
    }
  }

  private static void help(String name, PrintStream out) {
    Supplier<Command> factory = COMMANDS.get(name);
    if (factory != null) {
      out.println("usage: " + factory.get().usage());
      return;
    }
    out.println("usage: java -jar oncely-examples.jar [subcommand] [options]   (default: "
        + DEFAULT_COMMAND + ")");
    COMMANDS.forEach((n, f) -> out.println(String.format("  %-8s %s", n, f.get().summary())));
  }
}
