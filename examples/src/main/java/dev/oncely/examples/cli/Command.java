package dev.oncely.examples.cli;

import java.io.PrintStream;
import java.util.List;

/**
 * One subcommand of {@code java -jar oncely-examples.jar}. To add one, implement this interface
 * and register it in {@link dev.oncely.examples.Main#COMMANDS}.
 *
 * <p>Exit codes are shared by every command: {@link #EXIT_OK}, {@link #EXIT_FAILURE},
 * {@link #EXIT_USAGE}, {@link #EXIT_PENDING}.
 */
public interface Command {
  /** Success. */
  int EXIT_OK = 0;
  /** The command ran and failed (port in use, I/O error). */
  int EXIT_FAILURE = 1;
  /** Bad usage; a message named the bad item. */
  int EXIT_USAGE = 2;
  /** Work is left unfinished on purpose and can be resumed (used by {@code run}/{@code resume}). */
  int EXIT_PENDING = 3;

  /** One line describing the command, shown by {@code help}. */
  String summary();

  /** The synopsis of the command's options, shown on bad usage. */
  String usage();

  /**
   * Runs the command with the arguments after its name.
   *
   * @param out the program's result (the last line may be machine-read)
   * @param err progress and messages for humans
   * @return the exit code
   * @throws UsageException if the arguments are bad; nothing has been started then
   */
  int run(List<String> args, PrintStream out, PrintStream err) throws UsageException;
}
