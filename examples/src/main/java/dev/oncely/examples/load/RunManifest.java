package dev.oncely.examples.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * {@code run.json} in the store directory: what a run was started with (intent count, target,
 * dialect, engine), so that a second {@code run} or a {@code resume} drives exactly the same
 * intents. Written once, atomically (temporary file, fsync, rename, directory fsync), before the
 * first intent record is created.
 */
record RunManifest(int intents, String target, String dialect, LoadSettings.StoreEngine engine) {
  static final String FILE_NAME = "run.json";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** For {@code run}: the existing manifest if it matches {@code s}, else a new one written now. */
  static RunManifest createOrMatch(LoadSettings s) throws LoadSetupException {
    RunManifest existing = read(s.storeDir());
    if (existing == null) {
      RunManifest fresh = new RunManifest(s.intents(), s.target(), s.dialect(),
          s.engine() != null ? s.engine() : LoadSettings.StoreEngine.SQLITE);
      fresh.write(s.storeDir());
      return fresh;
    }
    if (existing.intents != s.intents()) {
      throw mismatch(s, "--intents", existing.intents, s.intents());
    }
    return existing.checkSame(s);
  }

  /** For {@code resume}: the existing manifest, which must match the options given. */
  static RunManifest requireExisting(LoadSettings s) throws LoadSetupException {
    RunManifest existing = read(s.storeDir());
    if (existing == null) {
      throw new LoadSetupException("store " + s.storeDir() + " holds no run to resume (no "
          + FILE_NAME + "); start one with 'run'");
    }
    if (s.intents() != 0 && existing.intents != s.intents()) {
      throw mismatch(s, "--intents", existing.intents, s.intents());
    }
    return existing.checkSame(s);
  }

  private RunManifest checkSame(LoadSettings s) throws LoadSetupException {
    if (!target.equals(s.target())) {
      throw mismatch(s, "--target", target, s.target());
    }
    if (!dialect.equals(s.dialect())) {
      throw mismatch(s, "--dialect", dialect, s.dialect());
    }
    if (s.engine() != null && s.engine() != engine) {
      throw mismatch(s, "--engine", engine, s.engine());
    }
    return this;
  }

  private static LoadSetupException mismatch(LoadSettings s, String option, Object stored,
      Object given) {
    return new LoadSetupException("store " + s.storeDir() + " holds a run with " + option + " "
        + stored + " but " + given + " was given; use the same options or another --store");
  }

  private static RunManifest read(Path dir) throws LoadSetupException {
    Path file = dir.resolve(FILE_NAME);
    if (!Files.exists(file)) {
      return null;
    }
    try {
      JsonNode n = JSON.readTree(file.toFile());
      return new RunManifest(n.get("intents").asInt(), n.get("target").asText(),
          n.get("dialect").asText(), LoadSettings.StoreEngine.parse(n.get("engine").asText()));
    } catch (IOException | RuntimeException e) {
      throw new LoadSetupException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private void write(Path dir) throws LoadSetupException {
    Path file = dir.resolve(FILE_NAME);
    Path tmp = dir.resolve(FILE_NAME + ".tmp");
    ObjectNode n = JSON.createObjectNode();
    n.put("intents", intents);
    n.put("target", target);
    n.put("dialect", dialect);
    n.put("engine", engine.name().toLowerCase(Locale.ROOT));
    try {
      Files.createDirectories(dir);
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
        ch.write(ByteBuffer.wrap(JSON.writeValueAsBytes(n)));
        ch.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
        d.force(true);
      } catch (IOException dirSyncUnsupported) {
        // Some file systems cannot open a directory; the rename is still atomic there.
      }
    } catch (IOException e) {
      throw new LoadSetupException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }
}
