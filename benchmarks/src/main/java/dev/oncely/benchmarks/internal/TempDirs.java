package dev.oncely.benchmarks.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Scratch directories for store files, deleted after use. */
public final class TempDirs {
  private TempDirs() {}

  /** A new empty directory under the system temp dir. */
  public static Path create(String prefix) {
    try {
      return Files.createTempDirectory("oncely-bench-" + prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Total bytes of the regular files under {@code dir}. */
  public static long size(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> {
        try {
          return Files.size(p);
        } catch (IOException e) {
          return 0;
        }
      }).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Deletes the clean-close markers ({@code *.clean}) of the stores in {@code dir}, so their next
   * open verifies in full, as after a crash.
   */
  public static void deleteCleanCloseMarkers(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path marker : files.filter(p -> p.getFileName().toString().endsWith(".clean"))
          .toList()) {
        Files.delete(marker);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes {@code dir} and everything in it; quiet when already gone. */
  public static void delete(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
