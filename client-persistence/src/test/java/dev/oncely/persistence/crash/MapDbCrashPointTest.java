package dev.oncely.persistence.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentStore;
import dev.oncely.persistence.internal.CommitHalts;
import dev.oncely.persistence.internal.mapdb.MapDbHalts;
import dev.oncely.persistence.internal.mapdb.MapDbCopies;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each crash point inside the MapDB engine's own I/O, hit on purpose once (the kill test hits them
 * at seeded moments): a child JVM writes until it halts there, then a second child halts at the
 * same point on the files the first left, and after each halt the store opens with every
 * acknowledged write.
 */
class MapDbCrashPointTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      MapDbHalts.JOURNAL_PROPERTY + "=3",
      MapDbHalts.CHECKPOINT_PROPERTY + "=1:REDO_FORCED",
      MapDbHalts.CHECKPOINT_PROPERTY + "=2:BEFORE_JOURNAL_RESET",
      MapDbHalts.CHECKPOINT_PROPERTY + "=1:WRITING_IN_PLACE",
      MapDbHalts.CHECKPOINT_PROPERTY + "=1:IMAGE_FORCED",
      MapDbHalts.WRITE_PROPERTY + "=400"})
  void a_halt_at_this_point_loses_no_acknowledged_write_and_the_store_opens(String point)
      throws Exception {
    Path store = dir.resolve("intents.db");
    Map<String, Long> acknowledged = new HashMap<>();
    for (int run = 0; run < 2; run++) {
      ChildProcess child = ChildProcess.start("mapdb", store, 7L + run, 2_000,
          List.of("-D" + point), dir, run);
      for (String line : child.remainingLines()) {
        if (line.startsWith("ACK ")) {
          String[] parts = line.split(" ");
          acknowledged.merge(parts[1], Long.parseLong(parts[2]), Math::max);
        } else {
          assertThat(line).as("child output; stderr: %s", child.stderrText())
              .isIn("OPENED", "DONE");
        }
      }
      assertThat(child.awaitExit()).as("exit status; stderr: %s", child.stderrText())
          .isEqualTo(CommitHalts.HALT_STATUS);
      if (point.startsWith(MapDbHalts.JOURNAL_PROPERTY)) {
        assertThat(Files.size(MapDbCopies.journalPath(store)))
            .as("the halted append left a torn frame behind").isPositive();
      }
      try (IntentStore reopened = CrashEngines.open("mapdb", store)) {
        assertThat(CrashVerifier.problems(reopened, acknowledged)).isEmpty();
      }
    }
    assertThat(acknowledged).isNotEmpty();
  }
}
