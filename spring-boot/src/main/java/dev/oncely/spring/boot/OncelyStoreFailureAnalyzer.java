package dev.oncely.spring.boot;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoreLockedException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * Reports a {@link StoreException} that stopped the start (the intent store could not be opened)
 * as "APPLICATION FAILED TO START", naming the {@code oncely.store.*} properties that chose the
 * store and what to do for the kind of failure (a store another process holds, a damaged or
 * undecryptable file). Registered in {@code META-INF/spring.factories}; Boot hands it the
 * environment.
 */
class OncelyStoreFailureAnalyzer extends AbstractFailureAnalyzer<StoreException> {
  private final Environment environment;

  OncelyStoreFailureAnalyzer(Environment environment) {
    this.environment = environment;
  }

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, StoreException cause) {
    String engine = environment.getProperty("oncely.store.engine");
    String path = environment.getProperty("oncely.store.path");
    String description = "Oncely's intent store could not be opened: " + cause.getMessage()
        + "\n\n    oncely.store.engine: " + (engine == null ? "(unset: postgres with a DataSource"
            + " and oncely-client-postgres, else mapdb)" : engine)
        + "\n    oncely.store.path: " + (path == null ? "(unset: oncely/intents.db)" : path);
    return new FailureAnalysis(description, action(cause), cause);
  }

  private static String action(StoreException cause) {
    if (cause instanceof StoreLockedException) {
      return "Another process holds the store file: stop the other instance, or give each"
          + " instance its own oncely.store.path (a fleet shares intents through"
          + " oncely.store.engine=postgres).";
    }
    if (cause instanceof StoreCorruptedException) {
      return "The store file at oncely.store.path failed its checks. Keep it (it may hold"
          + " unfinished intents) and follow docs/operations.md to inspect and recover it with"
          + " the oncely CLI before starting again.";
    }
    if (cause instanceof StoreEncryptionException) {
      return "The store's encryption key does not open the file at oncely.store.path: give the"
          + " key the file was written with.";
    }
    return "Check oncely.store.engine and oncely.store.path (or, for postgres, the DataSource"
        + " and oncely.store.migrate), then start again.";
  }
}
