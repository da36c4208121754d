package dev.oncely.android.internal;

import android.database.DatabaseErrorHandler;
import android.database.sqlite.SQLiteDatabase;
import android.util.Log;
import dev.oncely.client.spi.Quarantine;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;

/**
 * The database error handler of the intent store. The framework's default handler deletes the
 * whole database file when SQLite reports corruption, which would silently forget every intent in
 * doubt; this one never deletes or moves anything. It notes that corruption was seen (the store
 * then reports {@code StoreCorruptedException}) and, only when asked to, copies the files aside.
 * Nothing is logged but file names and exception class names.
 */
public final class NeverDeleteOnCorruption implements DatabaseErrorHandler {
  private static final String TAG = "OncelyStore";
  private static final String[] SUFFIXES = {"", "-wal", "-shm"};

  private final File database;
  private final boolean copyAside;
  private volatile File lastCopy;
  private volatile boolean seen;

  /**
   * @param database the database file
   * @param copyAside whether to copy the files aside on corruption, under their
   *     {@link Quarantine#target} names
   */
  public NeverDeleteOnCorruption(File database, boolean copyAside) {
    this.database = database;
    this.copyAside = copyAside;
  }

  @Override
  public void onCorruption(SQLiteDatabase db) {
    seen = true;
    if (!copyAside) {
      return;
    }
    String aside = Quarantine.suffix(Instant.now());
    File databaseCopy = null;
    for (String suffix : SUFFIXES) {
      File from = new File(database.getPath() + suffix);
      if (from.isFile()) {
        File to = Quarantine.target(from, aside);
        try {
          copy(from, to);
        } catch (IOException e) {
          Log.w(TAG, "cannot copy " + from.getName() + " aside: " + e.getClass().getName());
        }
        if (suffix.isEmpty()) {
          databaseCopy = to;
        }
      }
    }
    lastCopy = databaseCopy;
  }

  /** Whether SQLite has reported corruption since this handler was created. */
  public boolean corruptionSeen() {
    return seen;
  }

  /** The database copy made at the last corruption, or null if none was made. */
  public File lastCopy() {
    return lastCopy;
  }

  private static void copy(File from, File to) throws IOException {
    try (InputStream in = new FileInputStream(from);
        FileOutputStream out = new FileOutputStream(to)) {
      byte[] buffer = new byte[64 * 1024];
      for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
        out.write(buffer, 0, n);
      }
      out.getFD().sync();
    }
    if (!(to.setReadable(false, false) && to.setReadable(true, true)
        && to.setWritable(false, false) && to.setWritable(true, true))) {
      Log.w(TAG, "cannot make " + to.getName() + " owner-only");
    }
  }
}
