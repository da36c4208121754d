package dev.oncely.cli.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.StoreEncryption;
import java.util.Optional;

/**
 * The store engines the commands open stores with. The entry point finds the engines, built in and
 * plugged in, and hands them to every command in its {@link CliContext}; the commands see only
 * this interface, never the engines' plug-in interface.
 */
public interface StoreEngines {
  /**
   * The engine named {@code engine}, or, when it is null or {@code auto}, the first one that
   * recognizes {@code location}. Reads at most a few bytes of {@code location}.
   *
   * @throws CliException with {@link ExitCode#USAGE} naming the known engines when no engine has
   *     that name, or {@link ExitCode#FAILURE} when none recognizes {@code location}
   */
  Engine choose(String engine, String location);

  /**
   * On a store shared through leases, a description of the live lease another instance holds on
   * {@code id} (owner and end); empty when nobody else holds one or when {@code store} has no
   * leases.
   *
   * @throws dev.oncely.client.StoreException if the engine fails
   */
  Optional<String> liveLeaseOfAnother(IntentStore store, IntentId id);

  /** One engine, chosen for a location. */
  interface Engine {
    /**
     * Opens the existing store at {@code location}, turning every typed store failure into a
     * message that says what to do. Never creates a store.
     *
     * @param encryption the store key, or null for an unencrypted store
     * @param password the database password, or null for none; not kept, the caller may clear it
     *     once this returns
     * @throws CliException with {@link ExitCode#USAGE} when {@code location} is malformed,
     *     {@link ExitCode#STORE_IN_USE} when another process (the app) holds the store open, or
     *     {@link ExitCode#FAILURE} when the store is missing, unreachable, refuses the login, fails
     *     verification, needs another key or fails otherwise
     */
    IntentStore open(String location, StoreEncryption encryption, char[] password);
  }
}
