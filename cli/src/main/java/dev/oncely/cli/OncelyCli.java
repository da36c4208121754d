package dev.oncely.cli;

import dev.oncely.cli.internal.CliContext;
import dev.oncely.cli.internal.CliException;
import dev.oncely.cli.internal.ExitCode;
import dev.oncely.cli.internal.InboxCommand;
import dev.oncely.cli.internal.ListCommand;
import dev.oncely.cli.internal.ReceiptsCommand;
import dev.oncely.cli.internal.ResolveCommand;
import dev.oncely.cli.internal.RetryCommand;
import dev.oncely.cli.internal.ShowCommand;
import dev.oncely.cli.internal.conformance.ConformanceCommand;
import dev.oncely.client.StoreException;
import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import java.time.Clock;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/**
 * {@code java -jar oncely-cli.jar COMMAND}: the operator's tools for intents in doubt on any
 * durable store ({@code list}, {@code show}, {@code resolve}, {@code retry}), for the server
 * half's receipts ({@code receipts list|show|resolve}) and inbox ({@code inbox
 * list|show|replay}), and a conformance check of a server's idempotency contract ({@code
 * conformance}).
 *
 * <p>Store commands take the store's owner lock for the length of one command, so they refuse to
 * run while the app holds the store open ({@link #EXIT_STORE_IN_USE}), and they never create,
 * quarantine or rewrite history: every change is one compare-and-set plus an appended note. A
 * PostgreSQL store is shared by a fleet and has no owner lock: there the CLI is one more instance,
 * and its compare-and-set is refused ({@link #EXIT_REFUSED}) while another instance holds a live
 * lease on the record.
 *
 * <p>Exit codes: {@link #EXIT_OK}, {@link #EXIT_FAILURE}, {@link #EXIT_USAGE},
 * {@link #EXIT_STORE_IN_USE}, {@link #EXIT_REFUSED}.
 */
@Command(name = "oncely", mixinStandardHelpOptions = true, version = "oncely-cli 0.1.0",
    description = "Operator tools for Oncely intent, receipt and inbox stores, and a server"
        + " conformance check.",
    subcommands = {ListCommand.class, ShowCommand.class, ResolveCommand.class,
        RetryCommand.class, ReceiptsCommand.class, InboxCommand.class, ConformanceCommand.class,
        CommandLine.HelpCommand.class})
public final class OncelyCli {
  /** The command did what was asked. */
  public static final int EXIT_OK = ExitCode.OK;
  /** The command failed: the store is missing, damaged, needs another key, or the server failed. */
  public static final int EXIT_FAILURE = ExitCode.FAILURE;
  /** The arguments are wrong. */
  public static final int EXIT_USAGE = ExitCode.USAGE;
  /** Another process, normally the app, holds the store open: stop it and run again. */
  public static final int EXIT_STORE_IN_USE = ExitCode.STORE_IN_USE;
  /** The command was refused to protect the record (finished, in doubt, or changed meanwhile). */
  public static final int EXIT_REFUSED = ExitCode.REFUSED;

  private OncelyCli() {}

  /** Runs the command line and exits the JVM with its exit code. */
  public static void main(String[] args) {
    System.exit(commandLine(new CliContext(Clock.systemUTC(), System.getenv(),
        StoreOpeners.discover())).execute(args));
  }

  /**
   * The picocli command line over {@code context}, with the CLI's error handling: a typed refusal
   * prints one message and ends with its exit code; a store failure prints its message and ends
   * with {@link #EXIT_FAILURE}. Output goes to {@link CommandLine#getOut()} and
   * {@link CommandLine#getErr()}, which callers may replace.
   */
  public static CommandLine commandLine(CliContext context) {
    CommandLine cli = new CommandLine(OncelyCli.class, new ContextFactory(context));
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setExecutionExceptionHandler((e, line, parsed) -> {
      PrintWriter err = line.getErr();
      String name = line.getCommandName();
      if (e instanceof CliException typed) {
        err.println(name + ": " + typed.getMessage());
        err.flush();
        return typed.exitCode();
      }
      if (e instanceof StoreException store) {
        err.println(name + ": the store failed: " + store.getMessage());
        err.flush();
        return EXIT_FAILURE;
      }
      throw e;
    });
    return cli;
  }

  /** Gives every command the shared context through its one-argument constructor. */
  private static final class ContextFactory implements CommandLine.IFactory {
    private final CliContext context;
    private final CommandLine.IFactory fallback = CommandLine.defaultFactory();

    ContextFactory(CliContext context) {
      this.context = context;
    }

    @Override
    public <K> K create(Class<K> type) throws Exception {
      try {
        Constructor<K> constructor = type.getDeclaredConstructor(CliContext.class);
        return constructor.newInstance(context);
      } catch (NoSuchMethodException e) {
        return fallback.create(type);
      }
    }
  }
}
