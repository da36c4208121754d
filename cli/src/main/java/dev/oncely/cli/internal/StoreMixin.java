package dev.oncely.cli.internal;

import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.StoreEncryption;
import java.nio.file.Path;
import java.util.Arrays;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/** The options that name a store and its key, shared by every store command. */
public final class StoreMixin {
  @Option(names = "--store", required = true, paramLabel = "STORE",
      description = "The store the app opens: MapDB control file, SQLite file, or a PostgreSQL URL"
          + " postgresql://[user@]host[:port]/db[?currentSchema=S] (no password in it).")
  String location;

  @Option(names = "--engine", paramLabel = "ENGINE", defaultValue = "auto",
      description = "mapdb, sqlite, postgresql or a plugged-in engine; default: ${DEFAULT-VALUE}"
          + " (detected from the location).")
  String engine;

  @ArgGroup(exclusive = true)
  KeySource key;

  /** Where the store key comes from: a file or an environment variable, never the command line. */
  static final class KeySource {
    @Option(names = "--key-file", paramLabel = "FILE",
        description = "File holding the app's 32-byte store key (raw, hex or Base64).")
    Path file;

    @Option(names = "--key-env", paramLabel = "VAR",
        description = "Environment variable holding the store key (hex or Base64).")
    String env;
  }

  @ArgGroup(exclusive = true)
  PasswordSource password;

  /**
   * Where a database password comes from: an owner-only file or an environment variable, never the
   * command line; without either, PGPASSWORD when set.
   */
  static final class PasswordSource {
    @Option(names = "--password-file", paramLabel = "FILE",
        description = "Owner-only file whose first line is the database password.")
    Path file;

    @Option(names = "--password-env", paramLabel = "VAR",
        description = "Environment variable holding the database password (default: PGPASSWORD when set).")
    String env;
  }

  /**
   * Opens the store, turning every typed store failure into a message that says what to do.
   *
   * @throws CliException with {@link ExitCode#STORE_IN_USE} when the app holds the store open, or
   *     {@link ExitCode#FAILURE} when the store is missing, damaged or needs another key
   */
  IntentStore open(CliContext context) {
    StoreEngines.Engine chosen = context.engines().choose(engine, location);
    StoreEncryption encryption = null;
    if (key != null) {
      encryption = key.file != null ? StoreKey.fromFile(key.file) : StoreKey.fromEnv(context, key.env);
    }
    char[] secret;
    if (password == null) {
      secret = StorePassword.fromDefault(context);
    } else if (password.file != null) {
      secret = StorePassword.fromFile(password.file);
    } else {
      secret = StorePassword.fromEnv(context, password.env);
    }
    try {
      return chosen.open(location, encryption, secret);
    } finally {
      if (secret != null) {
        Arrays.fill(secret, '\0');
      }
    }
  }
}
