package dev.oncely.spring.boot;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoreLockedException;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * Reports a {@link StoreException} that stopped the start (the intent store, or the server half's
 * receipt store or the webhooks' inbox store, could not be opened) as "APPLICATION FAILED TO START",
 * naming the properties that chose the store ({@code oncely.store.*}, or {@code
 * oncely.server.store.*} or {@code oncely.webhooks.store.*} when the bean that failed is the
 * receipt or the inbox store) and what to do for the kind of failure (a store another process
 * holds, a damaged or undecryptable file). Registered in {@code META-INF/spring.factories}; Boot
 * hands it the environment.
 */
class OncelyStoreFailureAnalyzer extends AbstractFailureAnalyzer<StoreException> {
  private final Environment environment;

  OncelyStoreFailureAnalyzer(Environment environment) {
    this.environment = environment;
  }

  /** The bean name of the server half's receipt store. */
  private static final String RECEIPT_STORE = "oncelyReceiptStore";
  /** The bean name of the webhooks' inbox store. */
  private static final String INBOX_STORE = "oncelyInboxStore";

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, StoreException cause) {
    if (failedBean(rootFailure, RECEIPT_STORE)) {
      return receiptStore(cause);
    }
    if (failedBean(rootFailure, INBOX_STORE)) {
      return inboxStore(cause);
    }
    String engine = environment.getProperty("oncely.store.engine");
    String path = environment.getProperty("oncely.store.path");
    String description = "Oncely's intent store could not be opened: " + cause.getMessage()
        + "\n\n    oncely.store.engine: " + (engine == null ? "(unset: postgres with a DataSource"
            + " and oncely-client-postgres, else mapdb)" : engine)
        + "\n    oncely.store.path: " + (path == null ? "(unset: oncely/intents.db)" : path);
    return new FailureAnalysis(description, action(cause), cause);
  }

  private FailureAnalysis receiptStore(StoreException cause) {
    String engine = environment.getProperty("oncely.server.store.engine");
    String path = environment.getProperty("oncely.server.store.path");
    String description = "Oncely's receipt store could not be opened: " + cause.getMessage()
        + "\n\n    oncely.server.store.engine: " + (engine == null ? "(unset: mapdb)" : engine)
        + "\n    oncely.server.store.path: "
        + (path == null ? "(unset: oncely/receipts.db)" : path);
    return new FailureAnalysis(description, receiptAction(cause), cause);
  }

  private FailureAnalysis inboxStore(StoreException cause) {
    String engine = environment.getProperty("oncely.webhooks.store.engine");
    String path = environment.getProperty("oncely.webhooks.store.path");
    String description = "Oncely's inbox store could not be opened: " + cause.getMessage()
        + "\n\n    oncely.webhooks.store.engine: " + (engine == null ? "(unset: mapdb)" : engine)
        + "\n    oncely.webhooks.store.path: "
        + (path == null ? "(unset: oncely/inbox.db)" : path);
    return new FailureAnalysis(description, inboxAction(cause), cause);
  }

  private static String inboxAction(StoreException cause) {
    if (cause instanceof StoreLockedException) {
      return "Another process holds the inbox store file: stop the other instance, or give"
          + " each instance its own oncely.webhooks.store.path (a fleet shares one inbox through"
          + " oncely.webhooks.store.engine=postgres).";
    }
    if (cause instanceof StoreCorruptedException) {
      return "The inbox store file at oncely.webhooks.store.path failed its checks. Keep it (it"
          + " may hold queued and dead events) and inspect it with the oncely CLI"
          + " (docs/operations.md) before starting again.";
    }
    return "Check oncely.webhooks.store.engine and oncely.webhooks.store.path (or, for"
        + " postgres, the DataSource and oncely.webhooks.store.migrate), then start again.";
  }

  private static String receiptAction(StoreException cause) {
    if (cause instanceof StoreLockedException) {
      return "Another process holds the receipt store file: stop the other instance, or give"
          + " each instance its own oncely.server.store.path (a fleet shares receipts through"
          + " oncely.server.store.engine=postgres).";
    }
    if (cause instanceof StoreCorruptedException) {
      return "The receipt store file at oncely.server.store.path failed its checks. Keep it (it"
          + " may hold pending receipts) and inspect it with the oncely CLI (docs/operations.md)"
          + " before starting again.";
    }
    return "Check oncely.server.store.engine and oncely.server.store.path (or, for postgres, the"
        + " DataSource and oncely.server.store.migrate), then start again.";
  }

  /** Whether the creation of bean {@code name} is among the causes of {@code failure}. */
  private static boolean failedBean(Throwable failure, String name) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof BeanCreationException e && name.equals(e.getBeanName())) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
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
