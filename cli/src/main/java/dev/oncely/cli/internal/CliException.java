package dev.oncely.cli.internal;


/**
 * A refusal or failure the CLI reports as one message and an exit code, without a stack trace.
 * Messages name the store or the record by its short key hash, never a key or a payload.
 */
public final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int exitCode;

  private CliException(int exitCode, String message, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  /** Something failed ({@link ExitCode#FAILURE}). */
  public static CliException failure(String message) {
    return new CliException(ExitCode.FAILURE, message, null);
  }

  /** Something failed because of {@code cause} ({@link ExitCode#FAILURE}). */
  public static CliException failure(String message, Throwable cause) {
    return new CliException(ExitCode.FAILURE, message, cause);
  }

  /** The arguments do not make sense ({@link ExitCode#USAGE}). */
  public static CliException usage(String message) {
    return new CliException(ExitCode.USAGE, message, null);
  }

  /** Another process owns the store ({@link ExitCode#STORE_IN_USE}). */
  public static CliException storeInUse(String message, Throwable cause) {
    return new CliException(ExitCode.STORE_IN_USE, message, cause);
  }

  /** The command was refused to protect the record; nothing was written ({@link ExitCode#REFUSED}). */
  public static CliException refused(String message) {
    return new CliException(ExitCode.REFUSED, message, null);
  }

  /** The exit code the CLI ends with. */
  public int exitCode() {
    return exitCode;
  }
}
