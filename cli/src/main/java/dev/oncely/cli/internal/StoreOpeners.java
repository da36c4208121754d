package dev.oncely.cli.internal;

import dev.oncely.cli.StoreOpener;
import dev.oncely.persistence.StoreEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/** Every engine the CLI can open: the built-in files, then the ones found by {@link ServiceLoader}. */
public final class StoreOpeners {
  private final List<StoreOpener> openers;

  private StoreOpeners(List<StoreOpener> openers) {
    this.openers = List.copyOf(openers);
  }

  /** MapDB, SQLite and every {@link StoreOpener} on the class path. */
  public static StoreOpeners discover() {
    List<StoreOpener> all = new ArrayList<>();
    all.add(new FileStoreOpener(StoreEngine.MAPDB));
    all.add(new FileStoreOpener(StoreEngine.SQLITE));
    for (StoreOpener plugged : ServiceLoader.load(StoreOpener.class)) {
      all.add(plugged);
    }
    return new StoreOpeners(all);
  }

  /**
   * The opener for {@code engine}, or, when it is null or {@code auto}, the one that recognizes
   * {@code location}.
   *
   * @throws CliException naming the known engines when none fits
   */
  public StoreOpener choose(String engine, String location) {
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
}
