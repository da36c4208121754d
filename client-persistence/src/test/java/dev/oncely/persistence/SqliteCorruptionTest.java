package dev.oncely.persistence;

import static dev.oncely.client.spi.IntentStoreContract.fullRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Truncated, overwritten and bit-flipped files give typed errors, or are moved aside on request. */
class SqliteCorruptionTest {
  private static final int RECORDS = 40;

  @TempDir Path dir;
  Path file;
  List<IntentRecord> written = new ArrayList<>();

  @BeforeEach
  void writeAStore() {
    file = dir.resolve("intents.db");
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      for (int i = 0; i < RECORDS; i++) {
        IntentRecord r = fullRecord("tenant", "pay", "key-" + i).toBuilder()
            .body(("MARKER-" + i + "-" + "x".repeat(200)).getBytes(StandardCharsets.UTF_8),
                "text/plain")
            .build();
        store.create(r);
        written.add(r);
      }
    }
  }

  @Test
  void a_truncated_file_is_reported_as_corrupted_naming_the_path_and_left_untouched()
      throws Exception {
    long size = Files.size(file);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(size / 2);
    }
    byte[] damaged = Files.readAllBytes(file);
    assertThatThrownBy(() -> openAndReadAll())
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining(file.toString());
    assertThat(Files.readAllBytes(file)).isEqualTo(damaged);
    assertThat(SqliteOwnershipTest.openDescriptorsUnder(dir)).as("descriptors left open").isZero();
  }

  @Test
  void a_file_truncated_to_zero_bytes_is_corrupted_not_a_new_empty_store() throws Exception {
    Files.write(file, new byte[0]);
    assertThatThrownBy(() -> SqliteIntentStore.open(file))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("not an Oncely store");
    assertThat(Files.size(file)).isZero();
  }

  @Test
  void an_overwritten_file_is_reported_as_corrupted_naming_the_path() throws Exception {
    byte[] garbage = new byte[4096];
    new Random(7).nextBytes(garbage);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.write(garbage);
    }
    assertThatThrownBy(() -> SqliteIntentStore.open(file))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining(file.toString());
    assertThat(SqliteOwnershipTest.openDescriptorsUnder(dir)).as("descriptors left open").isZero();
  }

  @Test
  void a_bit_flip_inside_a_record_is_caught_by_its_checksum_on_read() throws Exception {
    byte[] bytes = Files.readAllBytes(file);
    int at = indexOf(bytes, "MARKER-17-".getBytes(StandardCharsets.US_ASCII));
    assertThat(at).isPositive();
    flipBit(at + 12, 3);
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      assertThatThrownBy(() -> store.get(written.get(17).id()))
          .isInstanceOf(StoreCorruptedException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("checksum")
          .hasMessageNotContaining("key-17");
      assertThat(store.get(written.get(16).id())).contains(written.get(16));
      assertThatThrownBy(store::listUnfinished).isInstanceOf(StoreCorruptedException.class);
    }
  }

  @Test
  void random_bit_flips_are_either_harmless_or_reported_as_corruption_never_wrong_data()
      throws Exception {
    byte[] pristine = Files.readAllBytes(file);
    Random random = new Random(20261130);
    int reported = 0;
    for (int round = 0; round < 40; round++) {
      byte[] damaged = pristine.clone();
      for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
        int at = random.nextInt(damaged.length);
        damaged[at] ^= (byte) (1 << random.nextInt(8));
      }
      Files.write(file, damaged);
      try {
        List<IntentRecord> read = openAndReadAll();
        assertThat(read).as("round %d read back", round).containsExactlyElementsOf(written);
      } catch (StoreCorruptedException e) {
        assertThat(e).hasMessageContaining(file.toString());
        reported++;
      }
    }
    assertThat(reported).as("flips reported as corruption").isPositive();
  }

  @Test
  void quarantine_moves_the_damaged_files_aside_starts_empty_and_reports_them() throws Exception {
    byte[] garbage = new byte[4096];
    new Random(7).nextBytes(garbage);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.write(garbage);
    }
    byte[] damaged = Files.readAllBytes(file);
    List<QuarantineReport> reports = new ArrayList<>();
    StoreOptions options = StoreOptions.builder()
        .corruptionPolicy(CorruptionPolicy.QUARANTINE)
        .onQuarantine(reports::add)
        .clock(Clock.fixed(Instant.parse("2026-11-30T08:15:30.123Z"), ZoneOffset.UTC))
        .build();
    try (SqliteIntentStore store = SqliteIntentStore.open(file, options)) {
      assertThat(store.get(written.get(0).id())).isEmpty();
      store.create(written.get(0));
    }
    assertThat(reports).hasSize(1);
    QuarantineReport report = reports.get(0);
    Path moved = dir.resolve("intents.db.corrupt-20261130T081530123Z");
    assertThat(report.store()).isEqualTo(file);
    assertThat(report.movedTo()).contains(moved);
    assertThat(report.reason()).contains(file.toString());
    assertThat(Files.readAllBytes(moved)).isEqualTo(damaged);
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      assertThat(store.get(written.get(0).id())).contains(written.get(0));
    }
  }

  @Test
  void quarantine_moves_the_write_ahead_log_with_the_database() throws Exception {
    Files.write(dir.resolve("intents.db-wal"), new byte[] {1, 2, 3});
    Files.write(file, new byte[0]);
    List<QuarantineReport> reports = new ArrayList<>();
    StoreOptions options = StoreOptions.builder()
        .corruptionPolicy(CorruptionPolicy.QUARANTINE).onQuarantine(reports::add).build();
    SqliteIntentStore.open(file, options).close();
    assertThat(reports).hasSize(1);
    assertThat(reports.get(0).movedTo()).hasSize(2)
        .anySatisfy(p -> assertThat(p.getFileName().toString()).startsWith("intents.db.corrupt-"))
        .anySatisfy(p -> assertThat(p.getFileName().toString())
            .startsWith("intents.db-wal.corrupt-"));
  }

  @Test
  void a_throwing_quarantine_listener_does_not_fail_the_open() throws Exception {
    Files.write(file, new byte[0]);
    StoreOptions options = StoreOptions.builder()
        .corruptionPolicy(CorruptionPolicy.QUARANTINE)
        .onQuarantine(report -> {
          throw new IllegalStateException("listener bug");
        })
        .build();
    try (SqliteIntentStore store = SqliteIntentStore.open(file, options)) {
      assertThat(store.listUnfinished()).isEmpty();
    }
  }

  /**
   * An index that disagrees with its table (here: the unfinished index's entries no longer match
   * the columns its definition names, so a query through it finds nothing) passes
   * {@code quick_check}; open must refuse it and leave the file as it was.
   */
  @Test
  void an_index_that_disagrees_with_its_table_is_refused_although_quick_check_passes()
      throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement()) {
      st.execute("PRAGMA writable_schema = ON");
      assertThat(st.executeUpdate("UPDATE sqlite_schema SET sql = replace(sql, 'open_s, open_ns',"
          + " 'open_ns, open_s') WHERE name = 'intent_unfinished_ids'")).isEqualTo(1);
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement();
        ResultSet quick = st.executeQuery("PRAGMA quick_check")) {
      assertThat(quick.next()).isTrue();
      assertThat(quick.getString(1)).as("quick_check").isEqualTo("ok");
    }
    byte[] damaged = Files.readAllBytes(file);
    assertThatThrownBy(() -> SqliteIntentStore.open(file))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("intent_unfinished");
    assertThat(Files.readAllBytes(file)).isEqualTo(damaged);
  }

  @Test
  void a_newer_schema_version_is_a_clear_error_and_is_not_quarantined() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE oncely_meta SET value = x'09' WHERE name = 'schema'");
    }
    StoreOptions options = StoreOptions.builder()
        .corruptionPolicy(CorruptionPolicy.QUARANTINE)
        .onQuarantine(report -> {
          throw new AssertionError("quarantined a newer store: " + report);
        })
        .build();
    assertThatThrownBy(() -> SqliteIntentStore.open(file, options))
        .isInstanceOf(StoreException.class)
        .isNotInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("schema version 9");
    assertThat(Files.exists(file)).isTrue();
  }

  @Test
  void a_missing_database_beside_its_write_ahead_log_is_corrupted_not_a_new_store()
      throws Exception {
    Files.move(file, dir.resolve("elsewhere.db"));
    Files.write(dir.resolve("intents.db-wal"), new byte[] {1, 2, 3});
    assertThatThrownBy(() -> SqliteIntentStore.open(file))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("write-ahead log");
    assertThat(Files.exists(file)).isFalse();
  }

  private List<IntentRecord> openAndReadAll() {
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      List<IntentRecord> read = new ArrayList<>();
      for (IntentRecord r : written) {
        read.add(store.get(r.id()).orElseThrow(
            () -> new AssertionError("record " + r.id() + " vanished without an error")));
      }
      assertThat(store.listUnfinished()).hasSize(RECORDS);
      return read;
    }
  }

  private void flipBit(long offset, int bit) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(offset);
      int b = raf.read();
      raf.seek(offset);
      raf.write(b ^ (1 << bit));
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
