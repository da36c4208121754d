package dev.oncely.examples.cli;

/**
 * A command line that cannot be run: unknown subcommand, unknown or repeated option, missing or
 * bad value. The message names the offending item; {@link dev.oncely.examples.Main} prints it with
 * the command's usage and exits {@link Command#EXIT_USAGE}.
 */
public final class UsageException extends Exception {
  /** @param message names the bad item and the rule it breaks */
  public UsageException(String message) {
    super(message);
  }
}
