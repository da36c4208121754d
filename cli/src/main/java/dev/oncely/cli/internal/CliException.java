package dev.oncely.cli.internal;

import dev.oncely.cli.OncelyCli;

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

  /** Something failed ({@link OncelyCli#EXIT_FAILURE}). */
  public static CliException failure(String message) {
    return new CliException(OncelyCli.EXIT_FAILURE, message, null);
  }

  /** Something failed because of {@code cause} ({@link OncelyCli#EXIT_FAILURE}). */
  public static CliException failure(String message, Throwable cause) {
    return new CliException(OncelyCli.EXIT_FAILURE, message, cause);
  }

  /** The arguments do not make sense ({@link OncelyCli#EXIT_USAGE}). */
  public static CliException usage(String message) {
    return new CliException(OncelyCli.EXIT_USAGE, message, null);
  }

  /** Another process owns the store ({@link OncelyCli#EXIT_STORE_IN_USE}). */
  public static CliException storeInUse(String message, Throwable cause) {
    return new CliException(OncelyCli.EXIT_STORE_IN_USE, message, cause);
  }

  /** The command was refused to protect the record; nothing was written ({@link OncelyCli#EXIT_REFUSED}). */
  public static CliException refused(String message) {
    return new CliException(OncelyCli.EXIT_REFUSED, message, null);
  }

  /** The exit code the CLI ends with. */
  public int exitCode() {
    return exitCode;
  }
}
