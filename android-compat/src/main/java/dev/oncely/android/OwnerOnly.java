package dev.oncely.android;

import java.io.File;

/** Makes files and directories readable and writable by the app's own user only. */
final class OwnerOnly {
  private OwnerOnly() {}

  /** Restricts {@code file} if it exists; a directory keeps its owner-only search bit. */
  static void restrict(File file) {
    if (!file.exists()) {
      return;
    }
    boolean ok = file.setReadable(false, false) && file.setReadable(true, true)
        && file.setWritable(false, false) && file.setWritable(true, true)
        && file.setExecutable(false, false)
        && (!file.isDirectory() || file.setExecutable(true, true));
    if (!ok) {
      throw new dev.oncely.client.StoreException(
          "cannot make " + file + " accessible to the app only");
    }
  }
}
