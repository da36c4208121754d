package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.KeyCanary;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

/**
 * How the MapDB engine opens its files: creates a new store, or verifies an existing one before it
 * writes anything and then recovers it.
 *
 * <p><b>Verify before write.</b> Opening first checks, reading only (no replay, cut, rename or
 * permission change): the control file; the image's length and CRC32 as the control slot names
 * them, over its first {@code length} bytes (bytes past them are not part of the image); when the
 * slot names a redo ({@link RedoFile}), that the redo is whole and written for the named commit
 * and length, and that the image with the redo's pages written over it has the named CRC32; when
 * it names a rename, that the temp file (or, renamed already, the image) has it; the key canary;
 * and the whole journal (its acknowledged length, every frame's checksum and sequence). Only a
 * store that passes is touched, so a refused open leaves every file byte for byte as it was found.
 *
 * <p><b>Recovery.</b> A pending redo is written into the image again and forced, a pending rename
 * done, bytes past the named length cut off, and the slot then names the image with nothing
 * pending. The image is mapped privately as the working view and the journal frames after the
 * image's commit are replayed onto it (the pages they write are marked, so the next checkpoint
 * writes only those).
 *
 * <p><b>Conversion.</b> A store of the two-copy layout (control slot version 2 naming copy
 * {@code .a} or {@code .b} as the image) converts on its first open: the named copy (or the other,
 * when only that one still matches the slot) is verified like an image, renamed to the image
 * durably, the version 3 slot naming it written and forced, and only then are the other copy and
 * any temp copy deleted; the journal then replays as usual. A crash before the slot finds the
 * version 2 slot and the image under its new name, which this open looks for too; a crash after
 * it finds leftovers that the next open deletes.
 *
 * <p><b>After a clean close.</b> When the files are exactly those the last clean close left
 * ({@link MapDbCleanClose}: its marker matches every file and its block CRC32s combine to the
 * length and CRC32 the control slot names), the image is the one that close verified, so it is
 * not read for its CRC32: the open reads the marker, the first 64 KiB of each file, the control
 * file and the journal (empty after a clean close), whatever the store holds. Every other open
 * verifies in full as above. The marker is deleted durably where the files may start to change,
 * after every check, so a refused open leaves it too.
 */
final class MapDbRecovery {
  /** What an open leaves for the engine: its files and the commits held. */
  record Opened(ControlFile control, Journal journal, MapDbFile working, long imageSequence,
      long sequence, BlockCrcs sums) {}

  private final Path store;
  private final Path image;
  private final Path redoPath;
  private final Path journalPath;
  private final List<Path> twoCopies;
  private final FileIo io;
  private final KeyCanary canary;
  private ControlFile control;
  private Journal journal;
  private MapDbFile working;

  MapDbRecovery(Path store, FileIo io, KeyCanary canary) {
    this.store = store;
    this.image = MapDbCopies.imagePath(store);
    this.redoPath = RedoFile.pathOf(store);
    this.journalPath = MapDbCopies.journalPath(store);
    this.twoCopies = List.of(MapDbCopies.copyPath(store, 'a'), MapDbCopies.copyPath(store, 'b'));
    this.io = io;
    this.canary = canary;
  }

  /**
   * Opens the store, creating it when its control file holds no slot yet. Closes everything it
   * opened if it fails.
   *
   * @throws StoreCorruptedException if no file holds the checkpoint image, a named redo is
   *     missing or damaged, or the journal is missing, cut or damaged; no file was changed
   * @throws dev.oncely.client.StoreEncryptionException if the canary needs another key; no file
   *     was changed
   */
  Opened open() {
    try {
      return start();
    } catch (RuntimeException | Error e) {
      for (AutoCloseable c : new AutoCloseable[] {journal, control}) {
        try {
          if (c != null) {
            c.close();
          }
        } catch (Exception closeFailure) {
          e.addSuppressed(closeFailure);
        }
      }
      if (working != null) {
        try {
          working.release();
        } catch (RuntimeException closeFailure) {
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
    Path source = image;
    RedoFile redo = null;
    BlockCrcs sums;
    if (state.twoCopy()) {
      Path named = twoCopies.get(state.twoCopyImage());
      source = firstMatching(state, named, twoCopies.get(1 - state.twoCopyImage()), image);
      if (source == null) {
        throw new StoreCorruptedException(named + ": the checkpoint image of commit "
            + state.sequence() + " fails its checksum (length " + MapDbFiles.size(named)
            + ", control file says " + state.length() + ") and neither "
            + twoCopies.get(1 - state.twoCopyImage()) + " nor " + image + " is a copy of it");
      }
      sums = MapDbFiles.ifPrefixMatches(source, state);
    } else if (state.pending() == ControlFile.Pending.REDO) {
      redo = RedoFile.readIfFor(redoPath, state.sequence(), state.length());
      if (redo == null) {
        throw new StoreCorruptedException(redoPath + ": the redo of commit " + state.sequence()
            + " that the control file names is missing, cut or damaged");
      }
      sums = withRedo(redo);
      if (sums.whole() != state.crc()) {
        throw new StoreCorruptedException(image + ": the checkpoint image of commit "
            + state.sequence() + " with the redo's pages fails its checksum (control file says "
            + "length " + state.length() + ")");
      }
    } else if (state.pending() == ControlFile.Pending.RENAME) {
      source = firstMatching(state, MapDbFiles.tempOf(image), image);
      if (source == null) {
        throw new StoreCorruptedException(image + ": the rebuilt checkpoint image of commit "
            + state.sequence() + " is neither in " + MapDbFiles.tempOf(image) + " nor here");
      }
      sums = MapDbFiles.ifPrefixMatches(source, state);
    } else {
      sums = clean != null ? clean.sums() : MapDbFiles.ifPrefixMatches(image, state);
      if (sums == null) {
        throw new StoreCorruptedException(image + ": the checkpoint image of commit "
            + state.sequence() + " fails its checksum (length " + MapDbFiles.size(image)
            + ", control file says " + state.length() + ")");
      }
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
    ControlFile.State settled = new ControlFile.State(state.sequence(), state.length(),
        state.crc(), ControlFile.Pending.NONE);
    if (redo != null) {
      try (RedoFile.Reader pages = redo.reader()) {
        RedoFile.applyTo(io, image, state.length(), redo.pages(), pages);
      } catch (IOException e) {
        throw new StoreException("cannot read " + redoPath + ": " + e, e);
      }
      control.write(settled);
    } else if (state.twoCopy() || state.pending() == ControlFile.Pending.RENAME) {
      if (!source.equals(image)) {
        MapDbCheckpoint.rename(source, image);
      }
      cutTo(state.length());
      control.write(settled);
    } else {
      cutTo(state.length());
    }
    deleteTwoCopyLeftovers();
    working = MapDbFile.openView(image, io);
    if (working.sequence() != state.sequence()) {
      throw new StoreCorruptedException(image + ": holds commit " + working.sequence()
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
    return new Opened(control, journal, working, state.sequence(), sequence, sums);
  }

  /** The first of {@code candidates} that holds the image {@code state} names, or null. */
  private static Path firstMatching(ControlFile.State state, Path... candidates) {
    for (Path p : candidates) {
      if (MapDbFiles.ifPrefixMatches(p, state) != null) {
        return p;
      }
    }
    return null;
  }

  /** The block checksums of the image's named length with the redo's pages over it. */
  private BlockCrcs withRedo(RedoFile redo) {
    BitSet pages = redo.pages();
    try (RedoFile.Reader reader = redo.reader()) {
      if (!Files.isRegularFile(image)) {
        throw new StoreCorruptedException(image + ": the MapDB image is missing");
      }
      try (FileChannel channel = FileChannel.open(image)) {
        return BlockCrcs.read(channel, redo.length(), pages, reader);
      }
    } catch (IOException e) {
      throw new StoreException("cannot read " + image + " and " + redoPath + ": " + e, e);
    }
  }

  /** Cuts the image to {@code length} bytes, forced: what lies past it is no part of it. */
  private void cutTo(long length) {
    if (MapDbFiles.size(image) > length) {
      try (FileChannel channel = io.open(image)) {
        channel.truncate(length);
        channel.force(true);
      } catch (IOException e) {
        throw new StoreException("cannot cut " + image + " to " + length + " bytes: " + e, e);
      }
    }
  }

  /** Deletes the two-copy layout's files: the control slot names the image now. */
  private void deleteTwoCopyLeftovers() {
    for (Path copy : twoCopies) {
      MapDbFile.delete(copy);
      MapDbFile.delete(MapDbFiles.tempOf(copy));
    }
  }

  private Opened initialize() {
    for (Path p : List.of(image, twoCopies.get(0), twoCopies.get(1))) {
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
    Path temp = MapDbFiles.tempOf(image);
    MapDbFile.create(temp, 0, io).close();
    MapDbFiles.force(io, temp);
    MapDbCheckpoint.rename(temp, image);
    control.writeCanary(canary.bytes());
    BlockCrcs sums = MapDbFiles.checksum(io, image);
    control.write(new ControlFile.State(0, sums.length(), sums.whole(),
        ControlFile.Pending.NONE));
    deleteTwoCopyLeftovers();
    working = MapDbFile.openView(image, io);
    return new Opened(control, journal, working, 0, 0, sums);
  }

  private void forgetCleanClose() {
    try {
      MapDbCleanClose.forget(store);
    } catch (IOException e) {
      throw new StoreException("cannot delete " + MapDbCleanClose.markerOf(store) + ": " + e, e);
    }
  }

  /** A control file never written may only meet files left by an interrupted creation. */
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
