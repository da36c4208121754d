package dev.oncely.persistence;

import static dev.oncely.client.spi.IntentStoreContract.fullRecord;
import static dev.oncely.client.spi.IntentStoreContract.newRecord;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The stores in {@code src/test/resources/dev/oncely/persistence/format3/}, written by the MapDB
 * engine that kept two full copies of the MapDB file ({@code intents.db.a}, {@code intents.db.b},
 * control file layout version 2), and the records they hold. {@link #records()} is what a reader
 * must find in both; {@link TwoCopyFormatConversionTest} opens copies of them with today's code.
 *
 * <p>{@link #write_the_fixtures} wrote them with the release that had two copies (run only with
 * {@code -Doncely.fixture.out=DIR}; today's code writes the one-image layout, so running it now
 * writes no two-copy store): {@code clean/} was closed cleanly (empty journal, both copies equal,
 * clean-close marker), {@code journal-pending/} is the files as a crash left them: copied while
 * the store was open, after its last group commit was forced and before any checkpoint took it,
 * so the journal holds the last {@value #AFTER_CHECKPOINT} records' commits.
 */
public final class TwoCopyFixtures {
  /** Records in each fixture. */
  static final int RECORDS = 300;
  /** Records written after the last checkpoint of the journal-pending fixture. */
  static final int AFTER_CHECKPOINT = 40;
  static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

  /** Every record both fixtures hold, in creation order, as last written. */
  static List<IntentRecord> records() {
    List<IntentRecord> out = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      out.add(finalState(i));
    }
    return out;
  }

  /** Record {@code i} as created: a full record with a business id, or a bare NEW one. */
  static IntentRecord created(int i) {
    String key = "key-" + i;
    IntentRecord r = i % 3 == 0 ? fullRecord("tenant", "pay", key)
        : newRecord("tenant", i % 2 == 0 ? "refund" : "pay", key);
    return r.toBuilder().createdAt(T0.plusSeconds(i)).updatedAt(T0.plusSeconds(i)).build();
  }

  /** Record {@code i} as last written: every second one finished, COMPLETED or REJECTED. */
  static IntentRecord finalState(int i) {
    IntentRecord r = created(i);
    if (i % 2 != 0) {
      return r;
    }
    return r.successor().revision(r.revision() + 1).state(i % 4 == 0 ? IntentState.COMPLETED : IntentState.REJECTED)
        .updatedAt(T0.plusSeconds(i + 1)).build();
  }

  /** Writes record {@code i}: creates it, then finishes it when {@link #finalState} does. */
  static void write(MapDbIntentStore store, int i) {
    IntentRecord r = created(i);
    store.create(r);
    if (i % 2 == 0) {
      if (!store.compareAndSet(r, finalState(i))) {
        throw new IllegalStateException("cannot finish " + r.id());
      }
    }
  }

  @Test
  @EnabledIfSystemProperty(named = "oncely.fixture.out", matches = ".+")
  void write_the_fixtures() throws IOException {
    Path out = Path.of(System.getProperty("oncely.fixture.out"));
    Path work = Files.createTempDirectory("two-copy-fixtures");
    Path clean = work.resolve("clean/intents.db");
    try (MapDbIntentStore s = MapDbIntentStore.open(clean,
        StoreOptions.builder().journalLimit(16 * 1024).build())) {
      for (int i = 0; i < RECORDS; i++) {
        write(s, i);
      }
    }
    copyDir(clean.getParent(), out.resolve("clean"));
    Path pending = work.resolve("journal-pending/intents.db");
    try (MapDbIntentStore s = MapDbIntentStore.open(pending,
        StoreOptions.builder().journalLimit(16 * 1024).build())) {
      for (int i = 0; i < RECORDS - AFTER_CHECKPOINT; i++) {
        write(s, i);
      }
    }
    try (MapDbIntentStore s = MapDbIntentStore.open(pending,
        StoreOptions.builder().journalLimit(1L << 30).build())) {
      for (int i = RECORDS - AFTER_CHECKPOINT; i < RECORDS; i++) {
        write(s, i);
      }
      // Open: no clean close, the journal holds the commits since the checkpoint of the close.
      copyDir(pending.getParent(), out.resolve("journal-pending"));
    }
  }

  private static void copyDir(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (var files = Files.list(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (f.getFileName().toString().endsWith(".lock")) {
          continue;
        }
        Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }
}
