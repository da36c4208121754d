package dev.oncely.persistence;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.persistence.internal.StoreFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What both engines do with a damaged store under {@link CorruptionPolicy#QUARANTINE}: move its
 * files aside and tell the options' quarantine listener.
 */
final class DamagedStores {
  private static final Logger LOG = Logger.getLogger(DamagedStores.class.getName());

  private DamagedStores() {}

  /**
   * Moves a damaged store's {@code files} aside ({@link StoreFiles#quarantine}) and tells the
   * options' quarantine listener; a listener that throws is logged, not propagated.
   *
   * @throws StoreCorruptedException carrying {@code cause}'s message if the files cannot be moved
   */
  static void quarantineAndReport(
      Path store, List<Path> files, StoreOptions options, StoreCorruptedException cause) {
    List<Path> moved;
    try {
      moved = StoreFiles.quarantine(files, options.clock().instant());
    } catch (IOException e) {
      StoreCorruptedException failure = new StoreCorruptedException(cause.getMessage()
          + "; moving the damaged files aside failed: " + e, cause);
      failure.addSuppressed(e);
      throw failure;
    }
    LOG.log(Level.WARNING, "{0}: damaged store moved aside as {1}: {2}",
        new Object[] {store, moved, cause.getMessage()});
    try {
      options.quarantineListener().accept(new QuarantineReport(store, moved, cause.getMessage()));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "quarantine listener of " + store + " threw", e);
    }
  }
}
