package dev.oncely.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Every byte of every regular file under a directory, for scans of what a store keeps at rest. */
public final class FileBytes {
  private FileBytes() {}

  public static byte[] under(Path root) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(root)) {
      files = walk.filter(Files::isRegularFile).sorted().toList();
    }
    for (Path f : files) {
      try {
        all.write(Files.readAllBytes(f));
      } catch (java.nio.file.NoSuchFileException gone) {
        // A temporary file the engine removed while we walked: it holds nothing at rest.
      }
    }
    return all.toByteArray();
  }
}
