package dev.oncely.cli.internal;

/**
 * The exit codes every command ends with. {@code OncelyCli} publishes the same values as its
 * {@code EXIT_*} constants; they are defined here so that commands never reach back to the entry
 * point.
 */
public final class ExitCode {
  /** The command did what was asked. */
  public static final int OK = 0;
  /** The command failed: the store is missing, damaged, needs another key, or the server failed. */
  public static final int FAILURE = 1;
  /** The arguments are wrong. */
  public static final int USAGE = 2;
  /** Another process, normally the app, holds the store open: stop it and run again. */
  public static final int STORE_IN_USE = 3;
  /** The command was refused to protect the record (finished, in doubt, or changed meanwhile). */
  public static final int REFUSED = 4;

  private ExitCode() {}
}
