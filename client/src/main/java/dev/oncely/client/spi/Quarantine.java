package dev.oncely.client.spi;

import java.io.File;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Where a damaged store's files go: beside themselves as {@code <name>.corrupt-<UTC timestamp>}
 * ({@code intents.db.corrupt-20261130T081530123Z}), with {@code -1}, {@code -2}... when that name
 * is taken, so nothing is ever overwritten and one quarantine's files share one timestamp. Engines
 * move the files (a closed file) or copy them (a file the platform keeps open); none deletes.
 * Thread-safe; every method is static.
 */
public final class Quarantine {
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmssSSS'Z'").withZone(ZoneOffset.UTC);

  private Quarantine() {}

  /** The suffix of every file quarantined at {@code now}: {@code .corrupt-<timestamp>}. */
  public static String suffix(Instant now) {
    return ".corrupt-" + STAMP.format(now);
  }

  /** The first free name for {@code file} with {@code suffix}, in {@code file}'s directory. */
  public static File target(File file, String suffix) {
    File target = new File(file.getPath() + suffix);
    for (int n = 1; target.exists(); n++) {
      target = new File(file.getPath() + suffix + "-" + n);
    }
    return target;
  }
}
