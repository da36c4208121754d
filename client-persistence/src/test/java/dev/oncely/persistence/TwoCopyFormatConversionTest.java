package dev.oncely.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store the two-copy release wrote ({@link TwoCopyFixtures}: cleanly closed, or with commits
 * still in its journal) opens with today's code without losing a record: every record reads back
 * equal by id and by business id, the unfinished ones list and are claimed, the two copies give way
 * to one image, and a second open finds the same and leaves the image as it is.
 */
class TwoCopyFormatConversionTest {
  private static final String[] FILES = {"intents.db", "intents.db.journal", "intents.db.a",
      "intents.db.b"};

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"clean", "journal-pending"})
  void a_two_copy_store_opens_with_every_record(String fixture) throws IOException {
    Path store = unpack(fixture);
    try (MapDbIntentStore s = MapDbIntentStore.open(store)) {
      assertEveryRead(s);
    }
    assertThat(dir.resolve("intents.db.image")).as("the single image").isRegularFile();
    assertThat(dir.resolve("intents.db.a")).as("converted: no copy left").doesNotExist();
    assertThat(dir.resolve("intents.db.b")).doesNotExist();
    byte[] image = Files.readAllBytes(dir.resolve("intents.db.image"));
    try (MapDbIntentStore s = MapDbIntentStore.open(store)) {
      assertEveryRead(s);
    }
    assertThat(Files.readAllBytes(dir.resolve("intents.db.image")))
        .as("a second open (reads and claims, nothing committed) leaves the image as it is")
        .isEqualTo(image);
    assertThat(dir.resolve("intents.db.a")).doesNotExist();
  }

  /**
   * A conversion stopped after the rename and before the new control slot: the version 2 slot
   * names a copy that is gone, and the image under its new name is found and verified instead.
   */
  @ParameterizedTest
  @ValueSource(strings = {"clean", "journal-pending"})
  void a_conversion_stopped_after_its_rename_completes_on_the_next_open(String fixture)
      throws IOException {
    Path store = unpack(fixture);
    Files.move(dir.resolve("intents.db.a"), dir.resolve("intents.db.image"));
    Files.delete(dir.resolve("intents.db.b"));
    try (MapDbIntentStore s = MapDbIntentStore.open(store)) {
      assertEveryRead(s);
    }
    try (MapDbIntentStore s = MapDbIntentStore.open(store)) {
      assertEveryRead(s);
    }
  }

  private Path unpack(String fixture) throws IOException {
    for (String name : FILES) {
      String resource = "format3/" + fixture + "/" + name + ".gz";
      try (InputStream in = TwoCopyFormatConversionTest.class.getResourceAsStream(resource)) {
        assertThat(in).as(resource).isNotNull();
        Files.copy(new GZIPInputStream(in), dir.resolve(name));
      }
    }
    return dir.resolve("intents.db");
  }

  private static void assertEveryRead(MapDbIntentStore s) {
    List<IntentRecord> expected = TwoCopyFixtures.records();
    for (IntentRecord r : expected) {
      assertThat(s.get(r.id())).as("get %s", r.id()).contains(r);
      if (r.businessId() != null) {
        assertThat(s.findByBusinessId(r.id().scope(), r.id().operation(), r.businessId()))
            .as("business id of %s", r.id()).contains(r);
      }
    }
    Set<IntentId> unfinished = expected.stream().filter(r -> !r.state().isTerminal())
        .map(IntentRecord::id).collect(Collectors.toSet());
    assertThat(unfinished).hasSize(TwoCopyFixtures.RECORDS / 2);
    assertThat(s.listUnfinished()).containsExactlyInAnyOrderElementsOf(
        expected.stream().filter(r -> !r.state().isTerminal()).toList());
    List<IntentRecord> due = s.claimDue(TwoCopyFixtures.T0.plus(Duration.ofDays(30)),
        TwoCopyFixtures.RECORDS);
    assertThat(due.stream().map(IntentRecord::id).collect(Collectors.toSet()))
        .isEqualTo(unfinished);
    for (IntentRecord r : due) {
      s.release(r.id());
    }
  }
}
