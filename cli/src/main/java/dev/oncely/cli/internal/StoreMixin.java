package dev.oncely.cli.internal;

import dev.oncely.cli.StoreAccessDeniedException;
import dev.oncely.cli.StoreCredentials;
import dev.oncely.cli.StoreNotFoundException;
import dev.oncely.cli.StoreOpener;
import dev.oncely.cli.StoreUnreachableException;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoreLockedException;
import dev.oncely.client.spi.StoreEncryption;
import java.nio.file.Path;
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
   * @throws CliException with {@code EXIT_STORE_IN_USE} when the app holds the store open, or
   *     {@code EXIT_FAILURE} when the store is missing, damaged or needs another key
   */
  IntentStore open(CliContext context) {
    StoreOpener opener = context.openers().choose(engine, location);
    StoreEncryption encryption = null;
    if (key != null) {
      encryption = key.file != null ? StoreKey.fromFile(key.file) : StoreKey.fromEnv(context, key.env);
    }
    StoreCredentials credentials;
    if (password == null) {
      credentials = StorePassword.fromDefault(context);
    } else if (password.file != null) {
      credentials = StorePassword.fromFile(password.file);
    } else {
      credentials = StorePassword.fromEnv(context, password.env);
    }
    try {
      return opener.open(location, encryption, credentials);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    } catch (StoreUnreachableException e) {
      throw CliException.failure("cannot reach the store: " + e.getMessage(), e);
    } catch (StoreAccessDeniedException e) {
      throw CliException.failure("the store refused the login: " + e.getMessage(), e);
    } catch (StoreLockedException e) {
      throw CliException.storeInUse("the store is in use: " + e.getMessage() + ".\n"
          + "A store has exactly one owner, normally the app. Stop the app (its unfinished intents"
          + " stay in the store and resume on its next start), run this command again, then start"
          + " the app.", e);
    } catch (StoreEncryptionException e) {
      throw CliException.failure("cannot read the store with "
          + (encryption == null ? "no key" : "this key") + ": " + e.getMessage()
          + ". Pass the app's store key with --key-file or --key-env (neither for a plain"
          + " store).", e);
    } catch (StoreNotFoundException e) {
      throw CliException.failure(e.getMessage(), e);
    } catch (StoreCorruptedException e) {
      throw CliException.failure("the store failed verification and was left untouched: "
          + e.getMessage(), e);
    } catch (StoreException e) {
      throw CliException.failure("cannot open the store: " + e.getMessage(), e);
    }
  }
}
