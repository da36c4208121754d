package dev.oncely.cli;

import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.StoreEncryption;
import org.jspecify.annotations.Nullable;

/**
 * Opens one engine's existing intent store for the operator CLI. MapDB and SQLite files are built
 * in; another engine (for example a PostgreSQL store) plugs in by putting an implementation on the
 * CLI's class path and naming it in {@code META-INF/services/dev.oncely.cli.StoreOpener}. The CLI
 * then accepts its {@link #engine()} name in {@code --engine} and asks it in {@link #recognizes}
 * when {@code --engine} is left out.
 *
 * <p>Implementations must be stateless and thread-safe and must never create a store: an operator
 * who mistypes a path gets {@link StoreNotFoundException}, not a fresh empty store. A store shared
 * through leases returns one that implements {@link LeaseView}. The CLI finds finished records by
 * key hash or business id through {@link IntentStore#forEachFinished}.
 */
public interface StoreOpener {
  /** The engine name {@code --engine} accepts, lower case, for example {@code "mapdb"}. */
  String engine();

  /**
   * Whether {@code location} holds a store of this engine. Reads at most a few bytes; never
   * creates, locks or changes anything.
   */
  boolean recognizes(String location);

  /**
   * Opens the existing store at {@code location}, taking its owner lock.
   *
   * @param encryption the store key, or null for an unencrypted store
   * @throws StoreNotFoundException if there is no store of this engine there; nothing is created
   * @throws dev.oncely.client.StoreLockedException if another process (the app) owns the store
   * @throws dev.oncely.client.StoreEncryptionException if the key is wrong or missing
   * @throws dev.oncely.client.StoreCorruptedException if the store fails verification; nothing
   *     is changed
   * @throws dev.oncely.client.StoreException if the engine fails otherwise
   */
  IntentStore open(String location, @Nullable StoreEncryption encryption);

  /**
   * Opens the existing store at {@code location} with a login password; the default ignores
   * {@code credentials} (file engines need none) and calls {@link #open(String, StoreEncryption)}.
   *
   * @param encryption the store key, or null for an unencrypted store
   * @param credentials the password from the operator's file or environment, or none
   * @throws IllegalArgumentException if {@code location} is malformed or carries a secret
   * @throws StoreNotFoundException if there is no store of this engine there; nothing is created
   * @throws StoreUnreachableException if the store's server cannot be reached
   * @throws StoreAccessDeniedException if the server refuses the login
   * @throws dev.oncely.client.StoreLockedException if another process (the app) owns the store
   * @throws dev.oncely.client.StoreEncryptionException if the key is wrong or missing
   * @throws dev.oncely.client.StoreCorruptedException if the store fails verification
   * @throws dev.oncely.client.StoreException if the engine fails otherwise
   */
  default IntentStore open(String location, @Nullable StoreEncryption encryption,
      StoreCredentials credentials) {
    return open(location, encryption);
  }
}
