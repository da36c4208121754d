package dev.oncely.cli;

import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.persistence.CorruptionPolicy;
import dev.oncely.persistence.StoreEngine;
import dev.oncely.persistence.StoreOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The built-in openers: a {@link StoreEngine} file (MapDB or SQLite) opened with
 * {@link CorruptionPolicy#FAIL}, so the CLI never moves a damaged store aside.
 */
final class FileStoreOpener implements StoreOpener {
  private static final byte[] SQLITE_MAGIC = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);

  private final StoreEngine engine;

  /** The opener of {@code engine}'s files. */
  FileStoreOpener(StoreEngine engine) {
    this.engine = engine;
  }

  @Override
  public String engine() {
    return engine.toString();
  }

  @Override
  public boolean recognizes(String location) {
    Path file = pathOf(location);
    if (file == null || !Files.isRegularFile(file)) {
      return false;
    }
    boolean sqlite = startsWithSqliteMagic(file);
    if (engine == StoreEngine.SQLITE) {
      return sqlite;
    }
    // A MapDB store is its control file plus the image beside it (or, written by a release
    // that kept two copies, the copy .a).
    return !sqlite && (Files.isRegularFile(file.resolveSibling(file.getFileName() + ".image"))
        || Files.isRegularFile(file.resolveSibling(file.getFileName() + ".a")));
  }

  @Override
  public IntentStore open(String location, @Nullable StoreEncryption encryption) {
    Path file = pathOf(location);
    if (file == null || !Files.isRegularFile(file)) {
      throw new StoreNotFoundException("no store file at " + location
          + " (the CLI never creates one; pass the path the app opens)");
    }
    if (!recognizes(location)) {
      throw new StoreNotFoundException(location + " is not a " + engine + " store");
    }
    StoreOptions.Builder options = StoreOptions.builder().corruptionPolicy(CorruptionPolicy.FAIL);
    if (encryption != null) {
      options.encryption(encryption);
    }
    return engine.open(file, options.build());
  }

  private static @Nullable Path pathOf(String location) {
    try {
      return Path.of(location).toAbsolutePath().normalize();
    } catch (InvalidPathException e) {
      return null;
    }
  }

  private static boolean startsWithSqliteMagic(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return Arrays.equals(in.readNBytes(SQLITE_MAGIC.length), SQLITE_MAGIC);
    } catch (IOException e) {
      return false;
    }
  }
}
