package dev.oncely.cli;

import dev.oncely.cli.internal.CliException;
import dev.oncely.cli.internal.StoreEngines;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoreLockedException;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.persistence.StoreEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Every engine the CLI can open: the built-in MapDB, SQLite and PostgreSQL openers, then the
 * {@link StoreOpener}s found by {@link ServiceLoader}. It is where each failure a
 * {@link StoreOpener} may throw becomes the CLI's answer: a message that says what to do and an
 * exit code.
 */
final class StoreOpeners implements StoreEngines {
  private final List<StoreOpener> openers;

  private StoreOpeners(List<StoreOpener> openers) {
    this.openers = List.copyOf(openers);
  }

  /** MapDB, SQLite, PostgreSQL and every {@link StoreOpener} on the class path. */
  static StoreOpeners discover() {
    List<StoreOpener> all = new ArrayList<>();
    all.add(new FileStoreOpener(StoreEngine.MAPDB));
    all.add(new FileStoreOpener(StoreEngine.SQLITE));
    all.add(new PostgresStoreOpener());
    for (StoreOpener plugged : ServiceLoader.load(StoreOpener.class)) {
      all.add(plugged);
    }
    return new StoreOpeners(all);
  }

  @Override
  public Engine choose(@Nullable String engine, String location) {
    StoreOpener opener = opener(engine, location);
    return (where, encryption, password) -> open(opener, where, encryption, password);
  }

  @Override
  public Optional<String> liveLeaseOfAnother(IntentStore store, IntentId id) {
    return store instanceof LeaseView leases ? leases.liveLeaseOfAnother(id) : Optional.empty();
  }

  private StoreOpener opener(@Nullable String engine, String location) {
    if (engine == null || engine.equalsIgnoreCase("auto")) {
      for (StoreOpener opener : openers) {
        if (opener.recognizes(location)) {
          return opener;
        }
      }
      throw CliException.failure("no store found at " + location + " (looked for: " + names()
          + "); pass the path the app opens, or --engine");
    }
    String wanted = engine.trim().toLowerCase(Locale.ROOT);
    for (StoreOpener opener : openers) {
      if (opener.engine().equals(wanted)) {
        return opener;
      }
    }
    throw CliException.usage("unknown --engine '" + engine + "'; known: auto, " + names());
  }

  private String names() {
    return openers.stream().map(StoreOpener::engine).collect(Collectors.joining(", "));
  }

  private static IntentStore open(StoreOpener opener, String location,
      @Nullable StoreEncryption encryption, char @Nullable [] password) {
    StoreCredentials credentials =
        password == null ? StoreCredentials.none() : StoreCredentials.password(password);
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
