package dev.oncely.persistence.internal.mapdb;

import dev.oncely.persistence.internal.CleanCloseMarker;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The clean-close marker of a MapDB store, {@code <control file>.clean} (a
 * {@link CleanCloseMarker} of the control file, the journal and both copies): proof that the files
 * are byte for byte the ones a clean close left, with the image's per-block CRC32s, so the next
 * open neither reads both copies for their CRC32 nor compares them, whatever the store holds.
 *
 * <p><b>What a clean close guarantees before it records.</b> Every commit is in the image (the
 * close checkpointed, or nothing was committed since the last checkpoint), the journal is empty,
 * the control slot and the image were forced at that checkpoint, and the working copy equals the
 * image byte for byte: it did when it was opened (a checkpoint copies the pages it wrote onto it,
 * an open copies or verified it, or an earlier marker proved it) and the pages MapDB wrote into it
 * since (its own open and close) are compared with the image's before recording, then the working
 * copy is forced, so a power cut after the marker cannot leave a stale page behind it. The payload
 * holds which copy is the image, its commit and its block CRC32s; the open accepts it only if they
 * combine to the length and CRC32 the control slot names.
 *
 * <p><b>Why the bounded open keeps the guarantees.</b> The image was verified when the store was
 * opened (in full, or through an earlier marker, back to a full verification) and since then
 * written only by the engine, under the owner lock, in checkpoints whose CRC32 the control slot
 * holds; nothing wrote any file after the close ({@link CleanCloseMarker}). The open deletes the
 * marker durably after its checks and before it writes anything, so a crash during the run, a
 * copy of the files taken while open, or a store that was never closed cleanly gets the full
 * verification, and a refused open leaves the marker and every file as they were. What it cannot
 * see is damage no write caused (bit rot after the close): MapDB's pages carry no checksum, so it
 * is met on the read that touches it (each record's own CRC32, or MapDB failing to read a node,
 * both a {@code StoreCorruptedException}). Deleting the marker runs the full verification.
 */
final class MapDbCleanClose {
  /** What a clean close left: the image's commit and block CRC32s. */
  record Evidence(long sequence, BlockCrcs sums) {
    /** Whether this describes the image {@code state} names, with nothing pending. */
    boolean describes(ControlFile.State state) {
      return !state.twoCopy() && state.pending() == ControlFile.Pending.NONE
          && sequence == state.sequence() && sums.length() == state.length()
          && sums.whole() == state.crc();
    }
  }

  /** The first int of the payload: the one-image layout (the two-copy one wrote 0 or 1). */
  private static final int ONE_IMAGE = 3;

  private MapDbCleanClose() {}

  /** The marker file of the store whose control file is {@code store}. */
  static Path markerOf(Path store) {
    return store.resolveSibling(store.getFileName() + ".clean");
  }

  /**
   * Records the clean close of the store at {@code store}. Call once every file is closed, the
   * working copy forced and known equal to the image.
   *
   * @return whether the marker was written
   */
  static boolean record(Path store, Evidence evidence) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeInt(ONE_IMAGE);
      out.writeLong(evidence.sequence());
      evidence.sums().writeTo(out);
      out.flush();
      return CleanCloseMarker.record(markerOf(store), filesOf(store), bytes.toByteArray());
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * What the last clean close left, when every file is still exactly as it left them; empty
   * otherwise. Reads the marker and the first bytes of each file only.
   */
  static Optional<Evidence> read(Path store) {
    return CleanCloseMarker.read(markerOf(store), filesOf(store)).flatMap(payload -> {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload))) {
        int layout = in.readInt();
        long sequence = in.readLong();
        BlockCrcs sums = BlockCrcs.readFrom(in);
        return layout == ONE_IMAGE ? Optional.of(new Evidence(sequence, sums))
            : Optional.empty();
      } catch (IOException e) {
        return Optional.empty();
      }
    });
  }

  /** Deletes the marker durably: from now on the files may change. */
  static void forget(Path store) throws IOException {
    CleanCloseMarker.forget(markerOf(store));
  }

  private static List<Path> filesOf(Path store) {
    return List.of(store, MapDbCopies.journalPath(store), MapDbCopies.imagePath(store));
  }
}
