package dev.oncely.cli;

import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreLockedException;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.persistence.SqliteIntentStore;
import dev.oncely.persistence.StoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A plugged-in engine as a PostgreSQL store would be one: found by {@code ServiceLoader}, named by
 * a location that is not a file path ({@code plugged:<sqlite file>}), and reporting a store held by
 * the app ({@code plugged:held}) as {@link StoreLockedException}.
 */
public final class PluggedTestOpener implements StoreOpener {
  static final String PREFIX = "plugged:";

  @Override
  public String engine() {
    return "plugged";
  }

  @Override
  public boolean recognizes(String location) {
    return location.startsWith(PREFIX);
  }

  @Override
  public IntentStore open(String location, StoreEncryption encryption) {
    String rest = location.substring(PREFIX.length());
    if (rest.equals("held")) {
      throw new StoreLockedException("plugged store held by the app (session pid 42)", null);
    }
    Path file = Path.of(rest);
    if (!Files.exists(file)) {
      throw new StoreNotFoundException("no plugged store at " + rest);
    }
    return SqliteIntentStore.open(file, StoreOptions.defaults());
  }
}
