package dev.oncely.persistence.internal.mapdb;

import dev.oncely.persistence.internal.StoreFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.mapdb.volume.Volume;

/**
 * How the MapDB engine reaches its files: every byte it writes to the control file, the journal,
 * the redo file and the image goes through a channel handed out here, and every byte MapDB writes
 * into a file it builds (a new or rebuilt image) through a volume handed out here. The working
 * view's writes never reach a file (it maps the image privately) and its growth only extends the
 * file past the image's named length, so neither goes through here. Production uses
 * {@link #DEFAULT}; the power-loss tests hand out wrappers that remember which writes a
 * {@code force} has not covered yet, so they can drop them at a simulated power cut.
 */
public interface FileIo {
  /** Real files: owner-only channels and MapDB's own volumes, unwrapped. */
  FileIo DEFAULT = new FileIo() {
    @Override
    public FileChannel open(Path file) throws IOException {
      return StoreFiles.openOwnerOnly(file);
    }

    @Override
    public Volume volume(Path file, Volume volume) {
      return volume;
    }
  };

  /**
   * Opens {@code file} for reading and writing, creating it owner-only when missing.
   *
   * @throws IOException if it cannot be opened
   */
  FileChannel open(Path file) throws IOException;

  /** Returns the volume MapDB uses for {@code file}: {@code volume} itself or a wrapper of it. */
  Volume volume(Path file, Volume volume);
}
