package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.persistence.internal.StoreFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How the MapDB engine opens its files: creates a new store, or verifies an existing one before it
 * writes anything and then recovers it.
 *
 * <p><b>Verify before write.</b> Opening first checks, reading only (no copy, replay, cut or
 * permission change): the control file, the image's length and CRC32, the key canary, and the
 * whole journal (its acknowledged length, every frame's checksum and sequence). Only a store that
 * passes is touched, so a refused open leaves every file byte for byte as it was found.
 *
 * <p><b>Recovery.</b> The working copy is distrusted (MapDB may have been half-way through a
 * change when the process died): unless it matches the image byte for byte (a clean close leaves
 * both equal), the image is copied over it. The journal frames after the image's commit are then
 * replayed onto it (the pages they write are marked, so the next checkpoint copies only those).
 * An image that fails its checksum is replaced by the other copy when that one still matches it
 * byte for byte; otherwise opening fails with {@link StoreCorruptedException}.
 *
 * <p><b>After a clean close.</b> When the files are exactly those the last clean close left
 * ({@link MapDbCleanClose}: its marker matches every file and its block CRC32s combine to the
 * length and CRC32 the control slot names), the image is the one that close verified and both
 * copies are equal, so neither copy is read for its CRC32 nor compared: the open reads the marker,
 * the first 64 KiB of each file, the control file and the journal (empty after a clean close),
 * whatever the store holds. Every other open (no marker, a crash, any file written, truncated or
 * replaced since, the marker edited) verifies in full as above. The marker is deleted durably
 * where the files may start to change, after every check, so a refused open leaves it too.
 */
final class MapDbRecovery {
  /** What an open leaves for the engine: its files, which copy is the image, the commits held. */
  record Opened(ControlFile control, Journal journal, MapDbFile working, int image,
      long imageSequence, long sequence, BlockCrcs sums) {}

  private final Path store;
  private final Path[] paths;
  private final Path journalPath;
  private final FileIo io;
  private final KeyCanary canary;
  private ControlFile control;
  private Journal journal;
  private MapDbFile working;

  MapDbRecovery(Path store, Path[] paths, Path journalPath, FileIo io, KeyCanary canary) {
    this.store = store;
    this.paths = paths;
    this.journalPath = journalPath;
    this.io = io;
    this.canary = canary;
  }

  /**
   * Opens the store, creating it when its control file holds no slot yet. Closes everything it
   * opened if it fails.
   *
   * @throws StoreCorruptedException if no copy holds the checkpoint image, or the journal is
   *     missing, cut or damaged; no file was changed
   * @throws dev.oncely.client.StoreEncryptionException if the canary needs another key; no file
   *     was changed
   */
  Opened open() {
    try {
      return start();
    } catch (RuntimeException | Error e) {
      for (AutoCloseable c : new AutoCloseable[] {working, journal, control}) {
        try {
          if (c != null) {
            c.close();
          }
        } catch (Exception closeFailure) {
          e.addSuppressed(closeFailure);
        }
      }
      throw e;
    }
  }

  private Opened start() {
    ControlFile.State state;
    byte[] storedCanary;
    try (ControlFile peek = ControlFile.openReadOnly(store)) {
      state = peek == null ? null : peek.read().orElse(null);
      storedCanary = state == null ? null : peek.readCanary();
    }
    if (state == null) {
      return initialize();
    }
    MapDbCleanClose.Evidence clean =
        MapDbCleanClose.read(store).filter(e -> e.describes(state)).orElse(null);
    int trusted = state.trusted();
    boolean moved = false;
    BlockCrcs sums = clean != null ? clean.sums() : MapDbFiles.ifMatches(paths[trusted], state);
    if (sums == null) {
      sums = MapDbFiles.ifMatches(paths[1 - trusted], state);
      if (sums == null) {
        throw new StoreCorruptedException(paths[trusted] + ": the checkpoint image of commit "
            + state.sequence() + " fails its checksum (length " + MapDbFiles.size(paths[trusted])
            + ", control file says " + state.length() + ") and " + paths[1 - trusted]
            + " is not a copy of it");
      }
      trusted = 1 - trusted;
      moved = true;
    }
    canary.check(storedCanary, store.toString());
    Journal.verify(journalPath, state.sequence(), (n, payload) -> {
      try {
        MapDbBatch.check(payload);
      } catch (IllegalArgumentException e) {
        throw new StoreCorruptedException(journalPath + ": commit " + n + ": " + e.getMessage(),
            e);
      }
    });
    // Verified: from here on the files may change.
    forgetCleanClose();
    control = ControlFile.open(store, io);
    control.read();
    if (moved) {
      control.write(new ControlFile.State(trusted, state.sequence(), state.length(),
          state.crc()));
    }
    int other = 1 - trusted;
    if (clean == null && MapDbFiles.ifMatches(paths[other], state) == null) {
      MapDbFiles.copy(io, paths[trusted], paths[other]);
    }
    working = MapDbFile.openExisting(paths[other], io);
    if (working.sequence() != state.sequence()) {
      throw new StoreCorruptedException(paths[other] + ": holds commit " + working.sequence()
          + " but the control file says " + state.sequence());
    }
    MapDbFile target = working;
    journal = Journal.open(journalPath, io);
    long sequence = journal.replay(state.sequence(), (n, payload) -> {
      try {
        MapDbBatch.apply(payload, target);
      } catch (IllegalArgumentException e) {
        throw new StoreCorruptedException(journalPath + ": commit " + n + ": " + e.getMessage(),
            e);
      }
    });
    return new Opened(control, journal, working, trusted, state.sequence(), sequence, sums);
  }

  private Opened initialize() {
    for (Path p : paths) {
      if (Files.exists(p)) {
        requireEmpty(p);
      }
    }
    if (MapDbFiles.size(journalPath) > Journal.HEADER_AREA) {
      throw new StoreCorruptedException(journalPath + " holds " + MapDbFiles.size(journalPath)
          + " bytes but the control file beside it is empty; refusing to guess which commits"
          + " were acknowledged");
    }
    forgetCleanClose();
    control = ControlFile.open(store, io);
    journal = Journal.create(journalPath, io);
    Path temp = MapDbFiles.tempOf(paths[0]);
    MapDbFile.create(temp, 0, io).close();
    MapDbFiles.force(io, temp);
    try {
      StoreFiles.moveDurably(temp, paths[0]);
    } catch (IOException e) {
      throw new StoreException("cannot create " + paths[0] + ": " + e, e);
    }
    control.writeCanary(canary.bytes());
    BlockCrcs sums = MapDbFiles.checksum(io, paths[0]);
    control.write(new ControlFile.State(0, 0, sums.length(), sums.whole()));
    MapDbFiles.copy(io, paths[0], paths[1]);
    working = MapDbFile.openExisting(paths[1], io);
    return new Opened(control, journal, working, 0, 0, 0, sums);
  }

  private void forgetCleanClose() {
    try {
      MapDbCleanClose.forget(store);
    } catch (IOException e) {
      throw new StoreException("cannot delete " + MapDbCleanClose.markerOf(store) + ": " + e, e);
    }
  }

  /** A control file never written may only meet copies left by an interrupted creation. */
  private void requireEmpty(Path copy) {
    MapDbFile file = MapDbFile.openExisting(copy, io);
    try {
      if (file.sequence() != 0 || file.walk() != 0) {
        throw new StoreCorruptedException(copy + " holds records but the control file beside it"
            + " is empty; refusing to guess which commits were acknowledged");
      }
    } finally {
      file.close();
    }
  }
}
