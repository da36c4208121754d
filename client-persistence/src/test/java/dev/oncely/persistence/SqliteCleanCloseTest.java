package dev.oncely.persistence;

import static dev.oncely.client.spi.IntentStoreContract.fullRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.persistence.internal.sqlite.SqliteCleanClose;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The open after a clean close skips {@code integrity_check} only for the very file that close
 * left: any write since, however soon, a crash, or a missing marker brings the full check back.
 */
class SqliteCleanCloseTest {
  @TempDir Path dir;
  Path file;
  List<IntentRecord> written = new ArrayList<>();

  @BeforeEach
  void writeAStore() {
    file = dir.resolve("intents.db");
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      for (int i = 0; i < 200; i++) {
        IntentRecord r = fullRecord("tenant", "pay", "key-" + i);
        store.create(r);
        written.add(r);
      }
    }
  }

  @Test
  void a_clean_close_leaves_a_marker_that_the_next_open_removes_before_writing() throws Exception {
    Path marker = SqliteCleanClose.markerOf(file);
    assertThat(marker).exists();
    assertThat(SqliteCleanClose.matches(file)).isTrue();
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      assertThat(marker).doesNotExist();
      assertThat(store.get(written.get(7).id())).contains(written.get(7));
    }
    assertThat(SqliteCleanClose.matches(file)).isTrue();
  }

  @Test
  void a_write_right_after_the_clean_close_is_seen_and_the_damage_refused() throws Exception {
    byte[] page = new byte[4096];
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      long at = Files.size(file) / 4096 / 2 * 4096;
      raf.seek(at);
      raf.readFully(page);
      for (int i = 0; i < page.length; i++) {
        page[i] ^= 0x55;
      }
      raf.seek(at);
      raf.write(page);
    }
    assertThat(SqliteCleanClose.matches(file)).isFalse();
    byte[] damaged = Files.readAllBytes(file);
    assertThatThrownBy(() -> SqliteIntentStore.open(file))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining(file.toString());
    assertThat(Files.readAllBytes(file)).isEqualTo(damaged);
    assertThat(SqliteCleanClose.markerOf(file)).as("a refused open keeps the marker").exists();
  }

  @Test
  void a_store_copied_while_open_has_no_marker_and_gets_the_full_check() throws Exception {
    Path image = dir.resolve("image");
    Files.createDirectories(image);
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      store.create(fullRecord("tenant", "pay", "late"));
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          Files.copy(f, image.resolve(f.getFileName()));
        }
      }
    }
    Path copy = image.resolve("intents.db");
    assertThat(SqliteCleanClose.markerOf(copy)).doesNotExist();
    assertThat(SqliteCleanClose.matches(copy)).isFalse();
  }

  /**
   * Proves the check is skipped, not just passed: a damaged index that only
   * {@code integrity_check} finds is opened when the marker is made to describe it, and refused
   * without the marker.
   */
  @Test
  void only_a_matching_marker_skips_the_integrity_check() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement()) {
      st.execute("PRAGMA writable_schema = ON");
      st.executeUpdate("UPDATE sqlite_schema SET sql = replace(sql, 'open_s, open_ns',"
          + " 'open_ns, open_s') WHERE name = 'intent_unfinished_ids'");
    }
    assertThat(SqliteCleanClose.matches(file)).isFalse();
    assertThatThrownBy(() -> SqliteIntentStore.open(file))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("intent_unfinished");

    assertThat(SqliteCleanClose.record(file)).isTrue();
    SqliteIntentStore.open(file).close();
    assertThat(SqliteCleanClose.matches(file)).isTrue();
  }
}
